// The rules of Beat Zombies: pure values, the standard library only, time passed in.
// The scene feeds taps and elapsed time in and draws what it reads out; the rules never
// look at a clock, a screen or a speaker.

import GameCore

/// A point or a size on the lawn, in logical points; y grows downwards.
public struct LawnPoint: Equatable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

public struct LawnRect: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    public func contains(_ point: LawnPoint) -> Bool {
        point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }

    /// Grown about its centre so each side is at least `minimum`.
    public func padded(toAtLeast minimum: Double) -> LawnRect {
        let newWidth = max(width, minimum)
        let newHeight = max(height, minimum)
        return LawnRect(x: midX - newWidth / 2, y: midY - newHeight / 2, width: newWidth, height: newHeight)
    }
}

/// One of the four kinds of zombie, with the original demo's sprite size and walk frames.
public struct ZombieKind: Equatable, Sendable {
    public let index: Int
    public let width: Double
    public let height: Double
    /// Frames in one walk cycle (the cycle lasts `BeatZombiesRules.walkCycle`).
    public let frameCount: Int

    public static let all: [ZombieKind] = [
        ZombieKind(index: 0, width: 83, height: 72, frameCount: 31),
        ZombieKind(index: 1, width: 174, height: 109, frameCount: 25),
        ZombieKind(index: 2, width: 83, height: 72, frameCount: 12),
        ZombieKind(index: 3, width: 83, height: 72, frameCount: 15),
    ]
}

/// The constants of the game. The defaults are the original demo's (`classic`); the kiosk
/// plays `BeatZombiesDifficulty.arcade`'s, and a test may change any of them.
public struct BeatZombiesRules: Equatable, Sendable {
    /// Zombies on the lawn at once.
    public var zombieCount = 15
    /// One rules step, in seconds (the original's timer).
    public var tick = 0.05
    /// Walking speed at the start, in points per tick on a lawn `referenceWidth` wide.
    public var baseSpeed = 0.5
    /// Added to the speed by every zombie beaten (the original added 0.1 per hit).
    public var speedPerHit = 0.1
    /// Added to the speed per minute of play, so a game ends even for a player who beats few.
    public var speedPerMinute = 0.0
    /// The speed never goes beyond this (a crossing of `referenceWidth / maxSpeed` ticks).
    public var maxSpeed = 12.0
    /// The original phone's lawn width; speeds scale with the real lawn so a crossing
    /// takes the same time on any screen.
    public var referenceWidth = 375.0
    /// Zombies in the house that end the game.
    public var houseCapacity = 60
    /// Grow to `beatenPeakScale` over the first half, shrink to `beatenEndScale` over the second.
    public var beatenDuration = 0.5
    public var beatenPeakScale = 2.0
    public var beatenEndScale = 0.5
    /// Sprite sizes are multiplied by this (small screens may want smaller zombies).
    public var zombieScale = 1.0
    /// A hit box is never smaller than this, so a finger can beat a small zombie (~9 mm on a 7" panel).
    public var minimumHitSize = 48.0
    /// Respawns land this far beyond the right edge, at most, as a fraction of the lawn's
    /// width, so zombies trickle in instead of arriving in a wall.
    public var spawnDepth = 0.6
    /// One walk cycle, in seconds.
    public var walkCycle = 1.0

    public init() {}
}

/// How fast the zombies get faster: the operator's `zombies.difficulty`. The values were
/// chosen by playing the autoplayer at two skill levels over many seeds (DifficultyTests).
public enum BeatZombiesDifficulty: String, CaseIterable, Equatable, Sendable {
    /// For small children: slower growth and a bigger house; a few minutes for anyone.
    case gentle
    /// The original demo's rule: 0.1 points per tick more with every hit, nothing with time,
    /// a house of 60. A good player speeds the zombies up fastest, so skill shortens the game.
    case classic
    /// The kiosk's default: faster with every minute and, as in the original, with every
    /// hit; the house fills at 20, so a good player's game lasts about 2-4 minutes, a
    /// child's about one, and every game ends.
    case arcade

    public var rules: BeatZombiesRules {
        var rules = BeatZombiesRules()
        switch self {
        case .gentle:
            rules.speedPerHit = 0
            rules.speedPerMinute = 0.75
            rules.houseCapacity = 30
        case .classic:
            break
        case .arcade:
            // A good player's ~270 hits in ~2.3 minutes add about half what the minutes add.
            rules.speedPerHit = 0.006
            rules.speedPerMinute = 1.25
            rules.houseCapacity = 20
        }
        return rules
    }
}

public struct Zombie: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        case walking
        /// Being beaten: `elapsed` seconds into the grow-then-shrink animation.
        case beaten(elapsed: Double)
    }

    /// Stable slot number, 0..<zombieCount.
    public let id: Int
    /// Bumped at every respawn, so a scene can tell a new zombie from the old one.
    public internal(set) var generation: Int
    public internal(set) var kind: ZombieKind
    /// Top-left corner on the lawn (x may be beyond either edge).
    public internal(set) var position: LawnPoint
    public internal(set) var state: State
    /// Where in its walk cycle this zombie started, 0..<1, so they don't step in unison.
    public internal(set) var walkPhase: Double
    /// Seconds this zombie has walked; drives the walk cycle.
    public internal(set) var walkTime: Double

    public var isBeaten: Bool {
        if case .beaten = state { return true }
        return false
    }
}

/// What happened during a step, for the scene to play sounds and animations.
public enum BeatZombiesEvent: Equatable, Sendable {
    /// A zombie was beaten by a tap; the score is now `score`.
    case hit(zombie: Int, score: Int)
    /// The zombies now walk `level + 1` times their starting speed (or faster): shown as
    /// "Faster!" at 2x, 3x, 4x...
    case speedUp(level: Int)
    /// A zombie reached the house; `count` are in it now.
    case enteredHouse(zombie: Int, count: Int)
    /// The house is full: the game is over.
    case lost
}

public struct BeatZombiesModel: Sendable {
    public enum Phase: Equatable, Sendable {
        case playing
        /// The zombies won: everything is frozen and taps are ignored until restart.
        case lost
    }

    public let rules: BeatZombiesRules
    /// The lawn's size in points; zombies walk from beyond `width` to below 0.
    public private(set) var lawnWidth: Double
    public private(set) var lawnHeight: Double
    public private(set) var zombies: [Zombie] = []
    public private(set) var score = 0
    public private(set) var inHouse = 0
    /// Whole multiples of the start speed passed so far, less one (`speedUp` events).
    public private(set) var speedUps = 0
    public private(set) var phase: Phase = .playing
    /// Ticks run since the start (or restart).
    public private(set) var ticks = 0
    private var pendingTime = 0.0
    private var random: SeededRandom

    public init(lawnWidth: Double, lawnHeight: Double, seed: UInt64, rules: BeatZombiesRules = BeatZombiesRules()) {
        self.rules = rules
        self.lawnWidth = max(1, lawnWidth)
        self.lawnHeight = max(1, lawnHeight)
        self.random = SeededRandom(seed: seed)
        spawnAll()
    }

    // MARK: - Reading the state

    /// Seconds of play since the start (or restart).
    public var playTime: Double { Double(ticks) * rules.tick }

    /// Walking speed in points per tick on a lawn `referenceWidth` wide: the start speed, more
    /// with every zombie beaten and with every minute played, up to `maxSpeed`.
    public var referenceSpeed: Double {
        min(rules.maxSpeed, rules.baseSpeed + Double(score) * rules.speedPerHit + playTime / 60 * rules.speedPerMinute)
    }

    /// Walking speed in points per tick on this lawn.
    public var speedPerTick: Double { referenceSpeed * lawnWidth / rules.referenceWidth }

    /// Seconds a zombie takes to cross the lawn at the present speed.
    public var crossingTime: Double { rules.referenceWidth / referenceSpeed * rules.tick }

    /// Walking speed in points per second on this lawn.
    public var speedPerSecond: Double { speedPerTick / rules.tick }

    /// How far into the next tick the leftover time reaches, 0..<1; a scene draws walking
    /// zombies `speedPerTick * tickFraction` further left so motion is smooth between ticks.
    public var tickFraction: Double { phase == .playing ? min(1, pendingTime / rules.tick) : 0 }

    /// The zombie's sprite size in points (before the beaten animation's scale).
    public func size(of zombie: Zombie) -> (width: Double, height: Double) {
        (zombie.kind.width * rules.zombieScale, zombie.kind.height * rules.zombieScale)
    }

    /// The zombie's sprite rectangle on the lawn.
    public func frame(of zombie: Zombie) -> LawnRect {
        let size = size(of: zombie)
        return LawnRect(x: zombie.position.x, y: zombie.position.y, width: size.width, height: size.height)
    }

    /// Where to draw the zombie this frame: its frame moved on by the unfinished tick.
    public func drawFrame(of zombie: Zombie) -> LawnRect {
        var rect = frame(of: zombie)
        if !zombie.isBeaten { rect.x -= speedPerTick * tickFraction }
        return rect
    }

    /// The rectangle a tap must land in: the sprite, padded up to a finger's size.
    public func hitBox(of zombie: Zombie) -> LawnRect {
        frame(of: zombie).padded(toAtLeast: rules.minimumHitSize)
    }

    /// The beaten animation's scale: 1 -> 2x over the first half, 2x -> 0.5x over the second.
    public func scale(of zombie: Zombie) -> Double {
        guard case .beaten(let elapsed) = zombie.state else { return 1 }
        let half = rules.beatenDuration / 2
        if elapsed <= half {
            return 1 + (rules.beatenPeakScale - 1) * (elapsed / half)
        }
        let t = min(1, (elapsed - half) / half)
        return rules.beatenPeakScale + (rules.beatenEndScale - rules.beatenPeakScale) * t
    }

    /// The walk cycle's frame index for this zombie (for sprite sheets), 0..<frameCount.
    public func walkFrame(of zombie: Zombie) -> Int {
        let cycles = walkCycleProgress(of: zombie)
        return min(zombie.kind.frameCount - 1, Int(cycles * Double(zombie.kind.frameCount)))
    }

    /// Progress through the current walk cycle, 0..<1 (for drawn walk cycles).
    public func walkCycleProgress(of zombie: Zombie) -> Double {
        let cycles = zombie.walkTime / rules.walkCycle + zombie.walkPhase
        return cycles - cycles.rounded(.down)
    }

    /// True when any part of the zombie is over the lawn (so it can be seen and tapped).
    public func isOnLawn(_ zombie: Zombie) -> Bool {
        let rect = frame(of: zombie)
        return rect.maxX > 0 && rect.x < lawnWidth
    }

    // MARK: - Steps

    /// Advances the rules by `seconds` of play in fixed ticks. Leftover time is kept for the
    /// next call, so any split of the same total time gives the same game.
    @discardableResult
    public mutating func advance(by seconds: Double) -> [BeatZombiesEvent] {
        guard phase == .playing, seconds > 0, seconds.isFinite else { return [] }
        var events: [BeatZombiesEvent] = []
        pendingTime += seconds
        // A hair of slack so 0.05 + 0.05 + ... counts as whole ticks despite rounding.
        let epsilon = 1e-9
        while pendingTime + epsilon >= rules.tick && phase == .playing {
            pendingTime -= rules.tick
            step(&events)
        }
        if pendingTime < 0 { pendingTime = 0 }
        if phase != .playing { pendingTime = 0 }
        return events
    }

    /// One rules tick.
    private mutating func step(_ events: inout [BeatZombiesEvent]) {
        ticks += 1
        noteSpeedUp(&events)
        let distance = speedPerTick
        for index in zombies.indices {
            switch zombies[index].state {
            case .walking:
                zombies[index].position.x -= distance
                zombies[index].walkTime += rules.tick
                if frame(of: zombies[index]).maxX <= 0 {
                    inHouse += 1
                    events.append(.enteredHouse(zombie: zombies[index].id, count: inHouse))
                    if inHouse >= rules.houseCapacity {
                        phase = .lost
                        events.append(.lost)
                        return  // frozen where they stand
                    }
                    respawn(index)
                }
            case .beaten(let elapsed):
                let now = elapsed + rules.tick
                if now + 1e-9 >= rules.beatenDuration {
                    respawn(index)
                } else {
                    zombies[index].state = .beaten(elapsed: now)
                }
            }
        }
    }

    /// A tap at a point on the lawn. Beats the topmost walking zombie under the finger;
    /// returns what happened (nothing when it missed, was on a zombie already beaten, or
    /// the game is over).
    @discardableResult
    public mutating func tap(at point: LawnPoint) -> [BeatZombiesEvent] {
        guard phase == .playing, let index = zombieIndex(at: point) else { return [] }
        zombies[index].state = .beaten(elapsed: 0)
        score += 1
        var events: [BeatZombiesEvent] = [.hit(zombie: zombies[index].id, score: score)]
        noteSpeedUp(&events)
        return events
    }

    /// A `speedUp` event each time the speed passes another whole multiple of the start speed.
    private mutating func noteSpeedUp(_ events: inout [BeatZombiesEvent]) {
        let level = Int((referenceSpeed / rules.baseSpeed + 1e-9).rounded(.down)) - 1
        if level > speedUps {
            speedUps = level
            events.append(.speedUp(level: level))
        }
    }

    /// The walking zombie a tap at `point` would beat: the one whose sprite is under the
    /// finger and drawn on top (lowest on the lawn), else the nearest padded hit box.
    public func zombieIndex(at point: LawnPoint) -> Int? {
        guard point.x >= 0, point.x < lawnWidth, point.y >= 0, point.y < lawnHeight else { return nil }
        var best: (index: Int, exact: Bool, depth: Double, distance: Double)?
        for (index, zombie) in zombies.enumerated() where !zombie.isBeaten && isOnLawn(zombie) {
            let sprite = drawFrame(of: zombie)
            let box = sprite.padded(toAtLeast: rules.minimumHitSize)
            guard box.contains(point) else { continue }
            let exact = sprite.contains(point)
            let dx = point.x - sprite.midX
            let dy = point.y - sprite.midY
            let candidate = (index, exact, sprite.maxY, dx * dx + dy * dy)
            if let current = best {
                if exact != current.exact {
                    if exact { best = candidate }
                } else if exact ? candidate.2 > current.depth : candidate.3 < current.distance {
                    best = candidate
                }
            } else {
                best = candidate
            }
        }
        return best?.index
    }

    /// Starts over on the same lawn: score, house, speed and zombies reset.
    /// A paid continue after the zombies won: the house is emptied and a fresh lawn walks
    /// in; the score and the pace stay.
    public mutating func continueAfterLoss() {
        guard phase == .lost else { return }
        inHouse = 0
        pendingTime = 0
        phase = .playing
        spawnAll()
    }

    public mutating func restart() {
        score = 0
        inHouse = 0
        speedUps = 0
        ticks = 0
        pendingTime = 0
        phase = .playing
        spawnAll()
    }

    /// The lawn changed size (a rotation, a new screen): positions are scaled so the game
    /// goes on where it was.
    public mutating func resizeLawn(width: Double, height: Double) {
        let newWidth = max(1, width)
        let newHeight = max(1, height)
        let sx = newWidth / lawnWidth
        for index in zombies.indices {
            let size = size(of: zombies[index])
            let yFraction = lawnHeight > size.height ? zombies[index].position.y / (lawnHeight - size.height) : 0
            zombies[index].position.x *= sx
            zombies[index].position.y = max(0, newHeight - size.height) * min(1, max(0, yFraction))
        }
        lawnWidth = newWidth
        lawnHeight = newHeight
    }

    // MARK: - Spawning

    /// A new lawn's wave: spread evenly over the spawn depth, the first one already stepping
    /// onto the lawn, so a zombie is in sight from the first second (respawns land anywhere
    /// in the depth).
    private mutating func spawnAll() {
        zombies = []
        let spacing = lawnWidth * rules.spawnDepth / Double(max(1, rules.zombieCount))
        for id in 0..<rules.zombieCount {
            let kind = ZombieKind.all[random.below(ZombieKind.all.count)]
            var zombie = Zombie(
                id: id, generation: 0, kind: kind, position: LawnPoint(x: 0, y: 0),
                state: .walking, walkPhase: random.unit(), walkTime: 0)
            zombie.position = spawnPosition(for: kind)
            let firstStep = lawnWidth - kind.width * rules.zombieScale * 0.6
            zombie.position.x = firstStep + spacing * (Double(id) + (id == 0 ? 0 : random.unit() - 0.5))
            zombies.append(zombie)
        }
    }

    private mutating func respawn(_ index: Int) {
        let kind = ZombieKind.all[random.below(ZombieKind.all.count)]
        zombies[index].kind = kind
        zombies[index].generation += 1
        zombies[index].state = .walking
        zombies[index].walkTime = 0
        zombies[index].walkPhase = random.unit()
        zombies[index].position = spawnPosition(for: kind)
    }

    /// Beyond the right edge, at a height where the whole sprite is on the lawn.
    private mutating func spawnPosition(for kind: ZombieKind) -> LawnPoint {
        let height = kind.height * rules.zombieScale
        let x = lawnWidth + random.double(in: 0...(lawnWidth * rules.spawnDepth))
        let y = random.double(in: 0...max(0, lawnHeight - height))
        return LawnPoint(x: x, y: y)
    }
}

/// Plays like a person for the attract mode and the difficulty tests: it notices a zombie
/// after a human reaction time, goes for the one nearest the house, taps where the zombie
/// was a moment ago (so fast zombies are harder to hit) and sometimes misses.
/// Deterministic for a seed; time passed in.
public struct ZombieAutoplayer: Sendable {
    /// How well it plays.
    public struct Skill: Equatable, Sendable {
        /// Seconds between taps, drawn uniformly from this range.
        public var tapInterval: ClosedRange<Double>
        /// Chance that a tap misses its zombie.
        public var missChance: Double
        /// A zombie must have been on the lawn this far (points) before it's noticed.
        public var reactionDistance: Double
        /// The tap lands where the zombie was this many seconds before (eye to finger).
        public var aimLag: Double

        public init(tapInterval: ClosedRange<Double>, missChance: Double, reactionDistance: Double, aimLag: Double) {
            self.tapInterval = tapInterval
            self.missChance = missChance
            self.reactionDistance = reactionDistance
            self.aimLag = aimLag
        }

        /// A practised adult: about two taps a second, few misses (the attract mode's player).
        public static let good = Skill(tapInterval: 0.28...0.65, missChance: 0.08, reactionDistance: 12, aimLag: 0.12)
        /// A young child: about one tap a second, often beside the zombie, late on fast ones.
        public static let child = Skill(tapInterval: 0.7...1.5, missChance: 0.3, reactionDistance: 40, aimLag: 0.3)
    }

    public var skill: Skill
    private var random: SeededRandom
    private var untilNextTap: Double

    public init(seed: UInt64, skill: Skill = .good) {
        self.skill = skill
        random = SeededRandom(seed: seed)
        untilNextTap = 0.5
    }

    /// Lets `seconds` pass; returns the points to tap now (usually none, sometimes one).
    public mutating func taps(after seconds: Double, in game: BeatZombiesModel) -> [LawnPoint] {
        guard game.phase == .playing else { return [] }
        untilNextTap -= seconds
        guard untilNextTap <= 0 else { return [] }
        untilNextTap += random.double(in: skill.tapInterval)
        if untilNextTap < 0 { untilNextTap = random.double(in: skill.tapInterval) }

        // The most dangerous zombie: walking, noticed, nearest the house.
        var target: Zombie?
        for zombie in game.zombies where !zombie.isBeaten {
            let rect = game.drawFrame(of: zombie)
            guard rect.x < game.lawnWidth - skill.reactionDistance, rect.maxX > 0 else { continue }
            if target == nil || rect.x < game.drawFrame(of: target!).x { target = zombie }
        }
        guard let zombie = target else { return [] }
        var rect = game.drawFrame(of: zombie)
        rect.x += game.speedPerSecond * skill.aimLag  // where it was when the eye saw it
        if random.unit() < skill.missChance {
            // A near miss: just beside the sprite, where the lawn is empty more often than not.
            let y = min(game.lawnHeight - 1, rect.maxY + game.rules.minimumHitSize * 0.6)
            return [LawnPoint(x: max(0, rect.midX), y: max(0, y))]
        }
        // Aim within the middle half of the sprite, clamped onto the lawn.
        let x = rect.midX + (random.unit() - 0.5) * rect.width * 0.5
        let y = rect.midY + (random.unit() - 0.5) * rect.height * 0.5
        return [LawnPoint(x: min(game.lawnWidth - 0.5, max(0, x)), y: min(game.lawnHeight - 0.5, max(0, y)))]
    }
}
