/// What games may ask of sound: named effects and music, nothing about devices.
/// The Arcade hands each game a SoundBoard backed by the mixer.

public enum Sound: String, Sendable, CaseIterable {
    case click, zombieHit, zombiesWon, cardFlip, match, mismatch, tileMerge
    case rightAnswer, wrongAnswer, hint, win, gameOver
}

public enum Music: String, Sendable, CaseIterable {
    case menu, beatZombies, guessPicture, game2048, memoryMatch
}

public protocol SoundBoard: AnyObject {
    /// Starts a one-shot effect. gain 0...1, pan -1 (left) ... 1 (right).
    func play(_ sound: Sound, gain: Float, pan: Float)
    /// Loops a tune, fading out whatever music played before.
    func playMusic(_ music: Music)
    func pauseMusic()
    func resumeMusic()
    func stopMusic()
}

extension SoundBoard {
    public func play(_ sound: Sound) { play(sound, gain: 1, pan: 0) }
}

/// A sound board that plays nothing and remembers what it was asked, for tests and
/// for a kiosk without a sound card.
public final class RecordingSoundBoard: SoundBoard {
    public enum Request: Equatable, Sendable {
        case effect(Sound), music(Music), pauseMusic, resumeMusic, stopMusic
    }
    public private(set) var requests: [Request] = []

    public init() {}

    public func play(_ sound: Sound, gain: Float, pan: Float) { record(.effect(sound)) }
    public func playMusic(_ music: Music) { record(.music(music)) }
    public func pauseMusic() { record(.pauseMusic) }
    public func resumeMusic() { record(.resumeMusic) }
    public func stopMusic() { record(.stopMusic) }

    private func record(_ request: Request) {
        // Bounded so a long soak without listeners keeps flat memory.
        if requests.count >= 1024 { requests.removeFirst(512) }
        requests.append(request)
    }
}
