#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Platform

/// Names one playing voice so the main thread can stop, fade or pause it later.
public struct VoiceHandle: Hashable, Sendable {
    public let raw: UInt32
    public static let none = VoiceHandle(raw: 0)
}

/// What the main thread asks of the audio thread. Plain values only: no reference counting
/// or allocation happens when the audio thread reads one.
enum MixerCommand: BitwiseCopyable {
    case play(handle: UInt32, clip: ClipRef, gain: Float, pan: Float, loop: Bool, fadeFrames: Int32, time: Double)
    /// Play whatever clip slot `slot` holds; if it is still empty, wait (silently) for it.
    case playSlot(handle: UInt32, slot: Int32, gain: Float, pan: Float, loop: Bool, fadeFrames: Int32, time: Double)
    case setGain(handle: UInt32, gain: Float, fadeFrames: Int32)
    case setPan(handle: UInt32, pan: Float)
    case stop(handle: UInt32, fadeFrames: Int32)
    case pause(handle: UInt32, fadeFrames: Int32)
    case resume(handle: UInt32, fadeFrames: Int32)
    case stopAll(fadeFrames: Int32)
    case master(volume: Float, fadeFrames: Int32)
}

/// A play command's time and the frame of the render call at which its voice started:
/// the sink turns these into tap-to-sound latency.
public struct MixerOnset: Sendable {
    public let commandTime: Double
    public let frame: Int
}

private enum FadeEnd: UInt8 { case none, stop, pause }

private struct Voice {
    var active = false
    var handle: UInt32 = 0
    var clip = ClipRef(samples: UnsafePointer(bitPattern: 1)!, frames: 0, channels: 1)
    var position = 0
    var loop = false
    var paused = false
    /// Current gain, ramping toward target by step per frame: fades and click-free changes.
    var level: Float = 0
    var target: Float = 0
    var step: Float = 0
    var fadeEnd = FadeEnd.none
    /// The gain asked for by play/setGain: what resume returns to.
    var userGain: Float = 1
    var pan: Float = 0
    var panLeft: Float = 1
    var panRight: Float = 1
    /// Start order, for stealing the oldest.
    var serial: UInt64 = 0
    /// >= 0: waiting for this clip slot to be filled; silent until then.
    var waitingSlot: Int32 = -1

    var stopping: Bool { fadeEnd == .stop }
}

/// A fixed-voice 48 kHz stereo mixer. The main thread calls the command methods (play,
/// stop, fades, volume), which only enqueue; the audio thread calls `render`, which drains
/// the queue, mixes every voice into a preallocated float bus, applies master volume and a
/// soft limiter, and writes 16-bit or float samples. render never allocates, locks or waits.
/// Contract: one thread issues commands, one (other or same) thread renders.
public final class Mixer: @unchecked Sendable {
    public let voiceCount: Int
    public let maxChunk: Int
    /// Voices beyond voiceCount hold stolen voices while they fade out, so stealing never clicks.
    private static let releaseSlots = 4
    private static let stealFadeFrames: Int32 = 240  // 5 ms
    private let commands: SPSCQueue<MixerCommand>
    /// Clips that arrive after start (music rendered in the background), by slot number.
    public static let slotCount = 32
    private let slotFills: SPSCQueue<(slot: Int32, clip: ClipRef)>
    private let slotClips: UnsafeMutablePointer<ClipRef?>
    /// Serializes slot producers (any thread); the audio thread never takes it.
    private let slotLock = Mutex<[AudioClip?]>(Array(repeating: nil, count: Mixer.slotCount))

    // Audio-thread state: preallocated once.
    private let voices: UnsafeMutablePointer<Voice>
    private let slotCount: Int
    private let bus: UnsafeMutablePointer<Float>
    private let onsetStore: UnsafeMutablePointer<MixerOnset>
    private let onsetCapacity = 64
    private var onsetsThisRender = 0
    private var serial: UInt64 = 0
    private var master: Float = 1
    private var masterTarget: Float = 1
    private var masterStep: Float = 0
    /// Output delay of the limiter (`LookaheadLimiter`): what is mixed now is heard this much later.
    public static let lookaheadFrames = LookaheadLimiter.lookaheadFrames
    private var limiter = LookaheadLimiter(sampleRate: AudioFormat.sampleRate)

    // Figures the audio thread publishes for the main thread.
    private let playingVoices = Atomic<Int>(0)
    private let stolenVoices = Atomic<Int>(0)
    private let limitedFrames = Atomic<Int>(0)

    // Main-thread state.
    private var nextHandle: UInt32 = 1
    /// Every clip ever handed to the audio thread stays alive here: the audio thread holds
    /// raw pointers, and must never be the one that frees sample memory.
    private var retained: [ObjectIdentifier: AudioClip] = [:]
    public private(set) var droppedCommands = 0

    public init(voices: Int = 16, maxChunk: Int = 1024, commandCapacity: Int = 256) {
        precondition(voices >= 1 && maxChunk >= 1)
        voiceCount = voices
        self.maxChunk = maxChunk
        commands = SPSCQueue(capacity: commandCapacity)
        slotFills = SPSCQueue(capacity: Mixer.slotCount * 2)
        slotClips = .allocate(capacity: Mixer.slotCount)
        slotClips.initialize(repeating: nil, count: Mixer.slotCount)
        slotCount = voices + Mixer.releaseSlots
        self.voices = .allocate(capacity: slotCount)
        self.voices.initialize(repeating: Voice(), count: slotCount)
        bus = .allocate(capacity: maxChunk * 2)
        onsetStore = .allocate(capacity: onsetCapacity)
    }

    deinit {
        voices.deinitialize(count: slotCount)
        voices.deallocate()
        bus.deallocate()
        onsetStore.deallocate()
        slotClips.deallocate()
        limiter.deallocate()
    }

    // MARK: - Main thread

    /// Starts a clip. gain 0...1 (more is allowed; the limiter guards the output),
    /// pan -1 (left) ... 1 (right); fadeIn in seconds (0 keeps the clip's own attack).
    @discardableResult
    public func play(_ clip: AudioClip, gain: Float = 1, pan: Float = 0, loop: Bool = false,
                     fadeIn: Double = 0, time: Double = monotonicSeconds()) -> VoiceHandle
    {
        retained[ObjectIdentifier(clip)] = clip
        let handle = nextHandle
        nextHandle = nextHandle == UInt32.max ? 1 : nextHandle + 1
        send(.play(handle: handle, clip: clip.ref, gain: max(0, gain), pan: max(-1, min(1, pan)),
                   loop: loop, fadeFrames: Mixer.frames(fadeIn), time: time))
        return VoiceHandle(raw: handle)
    }

    /// Like play, for the clip in a slot (see fillSlot). If the slot is still empty the
    /// voice exists but stays silent, and starts the moment the clip arrives.
    @discardableResult
    public func playSlot(_ slot: Int, gain: Float = 1, pan: Float = 0, loop: Bool = false,
                         fadeIn: Double = 0, time: Double = monotonicSeconds()) -> VoiceHandle
    {
        precondition(slot >= 0 && slot < Mixer.slotCount, "slot out of range")
        let handle = nextHandle
        nextHandle = nextHandle == UInt32.max ? 1 : nextHandle + 1
        send(.playSlot(handle: handle, slot: Int32(slot), gain: max(0, gain), pan: max(-1, min(1, pan)),
                       loop: loop, fadeFrames: Mixer.frames(fadeIn), time: time))
        return VoiceHandle(raw: handle)
    }

    /// Puts a clip in a slot, once; any thread (a background renderer, typically). The
    /// mixer keeps the clip alive. False if the slot was already filled.
    @discardableResult
    public func fillSlot(_ slot: Int, with clip: AudioClip) -> Bool {
        precondition(slot >= 0 && slot < Mixer.slotCount, "slot out of range")
        return slotLock.withLock { clips in
            guard clips[slot] == nil else { return false }
            clips[slot] = clip
            return slotFills.push((Int32(slot), clip.ref))
        }
    }

    public func stop(_ voice: VoiceHandle, fadeOut: Double = 0.005) {
        send(.stop(handle: voice.raw, fadeFrames: max(1, Mixer.frames(fadeOut))))
    }

    public func setGain(_ voice: VoiceHandle, _ gain: Float, fade: Double = 0.02) {
        send(.setGain(handle: voice.raw, gain: max(0, gain), fadeFrames: max(1, Mixer.frames(fade))))
    }

    public func setPan(_ voice: VoiceHandle, _ pan: Float) {
        send(.setPan(handle: voice.raw, pan: max(-1, min(1, pan))))
    }

    /// Fades out, then holds the voice's place until resume.
    public func pause(_ voice: VoiceHandle, fade: Double = 0.05) {
        send(.pause(handle: voice.raw, fadeFrames: max(1, Mixer.frames(fade))))
    }

    public func resume(_ voice: VoiceHandle, fade: Double = 0.05) {
        send(.resume(handle: voice.raw, fadeFrames: max(1, Mixer.frames(fade))))
    }

    public func stopAll(fadeOut: Double = 0.02) {
        send(.stopAll(fadeFrames: max(1, Mixer.frames(fadeOut))))
    }

    /// Master volume 0...1 (linear gain), ramped so a change never clicks.
    public func setMasterVolume(_ volume: Float, fade: Double = 0.05) {
        send(.master(volume: max(0, min(1, volume)), fadeFrames: max(1, Mixer.frames(fade))))
    }

    /// Voices sounding after the last render (stopping ones excluded).
    public var activeVoices: Int { playingVoices.load(ordering: .relaxed) }
    /// Voices taken from an older sound because all were busy, since start.
    public var stolenCount: Int { stolenVoices.load(ordering: .relaxed) }
    /// Frames in which the limiter reduced gain, since start.
    public var limitedFrameCount: Int { limitedFrames.load(ordering: .relaxed) }

    private func send(_ command: MixerCommand) {
        // Never wait for the audio thread: a full queue (the audio thread stalled for a long
        // time) loses the command, which is better than a frozen game.
        if !commands.push(command) { droppedCommands += 1 }
    }

    static func frames(_ seconds: Double) -> Int32 {
        Int32(max(0, min(Double(Int32.max), (seconds * Double(AudioFormat.sampleRate)).rounded())))
    }

    // MARK: - Audio thread

    /// Onsets of voices started by the last render call (valid until the next one).
    public var onsetCount: Int { onsetsThisRender }
    public func onset(_ index: Int) -> MixerOnset { onsetStore[index] }

    /// Mixes frames of interleaved stereo 16-bit samples.
    public func render(into out: UnsafeMutablePointer<Int16>, frames: Int) {
        beginRender()
        var done = 0
        while done < frames {
            let n = min(maxChunk, frames - done)
            mixChunk(frames: n)
            let dst = out + done * 2
            for i in 0..<(n * 2) {
                // The limiter keeps |bus| < 1, so this never wraps. Half away from zero by
                // hand: `.rounded()` is a libm call per sample on baseline x86-64.
                let v = bus[i] * 32767
                dst[i] = Int16(v < 0 ? v - 0.5 : v + 0.5)
            }
            done += n
        }
        publish()
    }

    /// Mixes frames of interleaved stereo float samples in -1...1.
    public func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        beginRender()
        var done = 0
        while done < frames {
            let n = min(maxChunk, frames - done)
            mixChunk(frames: n)
            (out + done * 2).update(from: bus, count: n * 2)
            done += n
        }
        publish()
    }

    private func beginRender() {
        onsetsThisRender = 0
        while let fill = slotFills.pop() {
            slotClips[Int(fill.slot)] = fill.clip
            for i in 0..<slotCount where voices[i].active && voices[i].waitingSlot == fill.slot {
                voices[i].waitingSlot = -1
                voices[i].clip = fill.clip
                voices[i].position = 0
                setPanGains(&voices[i], voices[i].pan)
            }
        }
        while let command = commands.pop() { apply(command) }
    }

    private func publish() {
        var playing = 0
        for i in 0..<slotCount where voices[i].active && !voices[i].stopping { playing += 1 }
        playingVoices.store(playing, ordering: .relaxed)
    }

    private func apply(_ command: MixerCommand) {
        switch command {
        case let .play(handle, clip, gain, pan, loop, fadeFrames, time):
            guard clip.frames > 0 else { return }
            let slot = freeSlot()
            serial += 1
            var v = Voice()
            v.active = true
            v.handle = handle
            v.clip = clip
            v.loop = loop
            v.userGain = gain
            v.serial = serial
            setPanGains(&v, pan)
            if fadeFrames > 0 {
                v.level = 0
                ramp(&v, to: gain, frames: fadeFrames, end: .none)
            } else {
                v.level = gain
                v.target = gain
            }
            voices[slot] = v
            if onsetsThisRender < onsetCapacity {
                onsetStore[onsetsThisRender] = MixerOnset(commandTime: time, frame: 0)
                onsetsThisRender += 1
            }
        case let .playSlot(handle, slot, gain, pan, loop, fadeFrames, time):
            if let clip = slotClips[Int(slot)] {
                apply(.play(handle: handle, clip: clip, gain: gain, pan: pan, loop: loop, fadeFrames: fadeFrames, time: time))
                return
            }
            let index = freeSlot()
            serial += 1
            var v = Voice()
            v.active = true
            v.handle = handle
            v.waitingSlot = slot
            v.loop = loop
            v.userGain = gain
            v.serial = serial
            v.pan = pan
            v.level = fadeFrames > 0 ? 0 : gain
            if fadeFrames > 0 { ramp(&v, to: gain, frames: fadeFrames, end: .none) } else { v.target = gain }
            voices[index] = v
        case let .setGain(handle, gain, fadeFrames):
            withVoice(handle) { v in
                v.userGain = gain
                if !v.paused && !v.stopping { ramp(&v, to: gain, frames: fadeFrames, end: .none) }
            }
        case let .setPan(handle, pan):
            withVoice(handle) { setPanGains(&$0, pan) }
        case let .stop(handle, fadeFrames):
            withVoice(handle) { v in
                if v.paused || v.waitingSlot >= 0 { v.active = false } else { ramp(&v, to: 0, frames: fadeFrames, end: .stop) }
            }
        case let .pause(handle, fadeFrames):
            withVoice(handle) { v in
                if v.waitingSlot >= 0 { v.paused = true; v.level = 0; v.step = 0; v.fadeEnd = .none; return }
                if !v.stopping && !v.paused { ramp(&v, to: 0, frames: fadeFrames, end: .pause) }
            }
        case let .resume(handle, fadeFrames):
            withVoice(handle) { v in
                guard !v.stopping else { return }
                v.paused = false
                ramp(&v, to: v.userGain, frames: fadeFrames, end: .none)
            }
        case let .stopAll(fadeFrames):
            for i in 0..<slotCount where voices[i].active {
                if voices[i].paused || voices[i].waitingSlot >= 0 { voices[i].active = false } else { ramp(&voices[i], to: 0, frames: fadeFrames, end: .stop) }
            }
        case let .master(volume, fadeFrames):
            masterTarget = volume
            masterStep = (volume - master) / Float(max(1, fadeFrames))
        }
    }

    private func withVoice(_ handle: UInt32, _ body: (inout Voice) -> Void) {
        for i in 0..<slotCount where voices[i].active && voices[i].handle == handle {
            body(&voices[i])
            return
        }
    }

    private func ramp(_ v: inout Voice, to target: Float, frames: Int32, end: FadeEnd) {
        v.target = target
        v.fadeEnd = end
        v.step = (target - v.level) / Float(max(1, frames))
        if v.step == 0 { finishRamp(&v) }
    }

    private func finishRamp(_ v: inout Voice) {
        v.level = v.target
        v.step = 0
        switch v.fadeEnd {
        case .stop: v.active = false
        case .pause: v.paused = true
        case .none: break
        }
        v.fadeEnd = .none
    }

    private func setPanGains(_ v: inout Voice, _ pan: Float) {
        v.pan = pan
        if v.clip.channels == 1 {
            // Constant power, scaled so the centre is unity: a centred mono effect plays at
            // the level it was made at.
            let angle = (pan + 1) * Float.pi / 4
            v.panLeft = cosf(angle) * Float(2).squareRoot()
            v.panRight = sinf(angle) * Float(2).squareRoot()
        } else {
            // Balance for stereo material: turn one side down, never the other up.
            v.panLeft = min(1, 1 - pan)
            v.panRight = min(1, 1 + pan)
        }
    }

    /// A free slot among the first voiceCount, else steal: the oldest one-shot (music is
    /// spared while any effect can go), moved to fade out over 5 ms in a release slot.
    private func freeSlot() -> Int {
        var playing = 0
        var free = -1
        for i in 0..<slotCount {
            if voices[i].active {
                if !voices[i].stopping { playing += 1 }
            } else if free < 0 {
                free = i
            }
        }
        if playing >= voiceCount {
            var victim = -1
            for pass in 0..<2 {
                for i in 0..<slotCount where voices[i].active && !voices[i].stopping {
                    if pass == 0 && voices[i].loop { continue }
                    if victim < 0 || voices[i].serial < voices[victim].serial { victim = i }
                }
                if victim >= 0 { break }
            }
            if victim >= 0 {
                stolenVoices.add(1, ordering: .relaxed)
                if voices[victim].paused {
                    voices[victim].active = false
                    if free < 0 { free = victim }
                } else {
                    ramp(&voices[victim], to: 0, frames: Mixer.stealFadeFrames, end: .stop)
                }
            }
        }
        if free >= 0 { return free }
        // Every slot busy, release slots included: replace the quietest fading voice.
        var quietest = 0
        for i in 0..<slotCount where voices[i].stopping {
            if !voices[quietest].stopping || voices[i].level < voices[quietest].level { quietest = i }
        }
        return quietest
    }

    private func mixChunk(frames n: Int) {
        bus.update(repeating: 0, count: n * 2)
        for s in 0..<slotCount where voices[s].active && !voices[s].paused && voices[s].waitingSlot < 0 {
            mixVoice(voices + s, frames: n)
        }
        var limited = 0
        var i = 0
        while i < n {
            // Music alone, well under full scale, is most of a kiosk's day: a delay then.
            if masterStep == 0 && limiter.isResting {
                i += limiter.delay(bus + 2 * i, count: n - i, scale: master)
                if i == n { break }
            }
            if masterStep != 0 {
                master += masterStep
                if (masterStep > 0 && master >= masterTarget) || (masterStep < 0 && master <= masterTarget) {
                    master = masterTarget
                    masterStep = 0
                }
            }
            let left = bus[2 * i] * master
            let right = bus[2 * i + 1] * master
            let (outLeft, outRight) = limiter.process(left, right)
            if limiter.gain < 0.9999 { limited += 1 }
            bus[2 * i] = outLeft
            bus[2 * i + 1] = outRight
            i += 1
        }
        if limited > 0 { limitedFrames.add(limited, ordering: .relaxed) }
    }

    private func mixVoice(_ v: UnsafeMutablePointer<Voice>, frames n: Int) {
        var i = 0
        while i < n {
            // No fade under way: the level is the same for every frame left. A fade moves
            // it a step each frame.
            var end = n
            if v.pointee.step != 0 {
                v.pointee.level += v.pointee.step
                let step = v.pointee.step
                if (step > 0 && v.pointee.level >= v.pointee.target) || (step < 0 && v.pointee.level <= v.pointee.target) {
                    finishRamp(&v.pointee)
                    if !v.pointee.active || v.pointee.paused { return }
                }
                end = i + 1
            }
            guard mixFrames(v, from: i, to: end) else { return }
            i = end
        }
    }

    /// Frames start..<end of a voice at its current level, one gain per channel; false
    /// when the clip ended (the voice is no longer active).
    private func mixFrames(_ v: UnsafeMutablePointer<Voice>, from start: Int, to end: Int) -> Bool {
        let clip = v.pointee.clip
        let data = clip.samples
        let gain = v.pointee.level / 32767
        let left = gain * v.pointee.panLeft
        let right = gain * v.pointee.panRight
        let stereo = clip.channels != 1
        var position = v.pointee.position
        for i in start..<end {
            if stereo {
                bus[2 * i] += Float(data[2 * position]) * left
                bus[2 * i + 1] += Float(data[2 * position + 1]) * right
            } else {
                let sample = Float(data[position])
                bus[2 * i] += sample * left
                bus[2 * i + 1] += sample * right
            }
            position += 1
            if position >= clip.frames {
                guard v.pointee.loop else {
                    v.pointee.active = false
                    return false
                }
                position = 0
            }
        }
        v.pointee.position = position
        return true
    }
}

