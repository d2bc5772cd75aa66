import XCTest
import Synchronization
@testable import Audio
import Platform

/// A PCM whose writes follow a script: succeed, fail with an errno, or hang for a while.
final class FakePCM: PCMOutput, @unchecked Sendable {
    enum Step { case ok, fail(Int32), stall(Double) }
    let periodFrames = 256
    let bufferFrames = 1024
    private let script = Mutex<[Step]>([])
    private let counters = Mutex<(frames: Int, recovers: [Int32])>((0, []))

    /// What recover answers: 0 (the stream runs again) or a negative errno.
    let recoverResult: Int32

    init(_ steps: [Step], recoverResult: Int32 = 0) {
        self.recoverResult = recoverResult
        script.withLock { $0 = steps }
    }

    var framesWritten: Int { counters.withLock { $0.frames } }
    var recovered: [Int32] { counters.withLock { $0.recovers } }

    func write(_ samples: UnsafePointer<Int16>, frames: Int) -> Int {
        let step = script.withLock { $0.isEmpty ? Step.ok : $0.removeFirst() }
        switch step {
        case .ok:
            usleep(500)  // a fast device: keeps the loop from spinning
            counters.withLock { $0.frames += frames }
            return frames
        case let .fail(code):
            return Int(code)
        case let .stall(seconds):
            usleep(UInt32(seconds * 1e6))
            counters.withLock { $0.frames += frames }
            return frames
        }
    }

    func available() -> Int { bufferFrames }
    func wait(timeoutMilliseconds: Int32) -> Int32 { 1 }
    func recover(_ error: Int32) -> Int32 {
        counters.withLock { $0.recovers.append(error) }
        return recoverResult
    }
}

/// Hands out devices in order; nil entries fail to open with ENODEV.
final class FakeOpener: @unchecked Sendable {
    private let devices: Mutex<[FakePCM?]>
    private let calls = Mutex(0)
    init(_ devices: [FakePCM?]) { self.devices = Mutex(devices) }
    var callCount: Int { calls.withLock { $0 } }
    var opener: PCMOpener {
        { [self] config throws(AudioDeviceError) in
            calls.withLock { $0 += 1 }
            let next = devices.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next else { throw AudioDeviceError("snd_pcm_open", config.device, -ENODEV) }
            return next
        }
    }
}

final class FaultTests: XCTestCase {
    func testUnderrunSuspendAndVanishedDeviceNeverStopTheGame() throws {
        let log = LogCapture()
        defer { log.restore() }
        let first = FakePCM([.ok, .ok, .ok, .fail(-EPIPE), .ok, .ok, .stall(0.3), .ok,
                             .fail(-ESTRPIPE), .ok, .ok, .fail(-ENODEV)])
        let second = FakePCM([])
        let opener = FakeOpener([first, nil, nil, second])
        var config = AudioConfig()
        config.device = "fake"
        config.reopenInterval = 0.05
        let mixer = Mixer()
        // Effects only: tunes asked for wait in their slots, which is all this test needs.
        let board = MixerSoundBoard(mixer: mixer, library: SoundLibrary(overrides: [:], renderMusic: false))
        let sink = ALSASink(mixer: mixer, config: config, opener: opener.opener)
        try sink.start()
        defer { sink.stop() }

        // The game loop: a tap every 2 ms; no call may wait on the audio thread.
        var slowest = 0.0
        let deadline = Date().addingTimeInterval(8)
        var taps = 0
        while Date() < deadline && second.framesWritten < 256 * 20 {
            let start = monotonicSeconds()
            board.play(.click, gain: 0.5, pan: 0)
            if taps % 50 == 0 { board.playMusic(taps % 100 == 0 ? .menu : .game2048) }
            slowest = max(slowest, monotonicSeconds() - start)
            taps += 1
            usleep(2000)
        }
        XCTAssertGreaterThanOrEqual(second.framesWritten, 256 * 20, "the device came back and plays again")
        // A call that waited on the audio thread would wait out the device's 0.3 s stall;
        // 0.1 s leaves room for a busy 2-core machine's scheduler (the music synth runs too).
        XCTAssertLessThan(slowest, 0.1, "a play call never blocks (slowest \(slowest) s over \(taps) taps)")
        XCTAssertEqual(first.recovered, [-EPIPE, -ESTRPIPE])
        XCTAssertEqual(sink.recoveries, 2)
        XCTAssertEqual(sink.deviceLosses, 1)
        XCTAssertEqual(opener.callCount, 4, "reopened every reopenInterval until it worked")
        XCTAssertEqual(sink.opens, 2)
        XCTAssertEqual(sink.state, .playing)
        XCTAssertEqual(log.count("lost"), 1, "\(log.all)")
        XCTAssertEqual(mixer.droppedCommands, 0, "the mixer kept taking commands while the device was gone")
    }

    func testFailedRecoveryCountsAsALostDevice() throws {
        let log = LogCapture()
        defer { log.restore() }
        let broken = FakePCM([.ok, .fail(-EPIPE)], recoverResult: -EBADFD)
        let opener = FakeOpener([broken])
        var config = AudioConfig()
        config.reopenInterval = 0.02
        let sink = ALSASink(mixer: Mixer(), config: config, opener: opener.opener)
        try sink.start()
        defer { sink.stop() }
        XCTAssertTrue(waitFor(2) { sink.deviceLosses == 1 && opener.callCount >= 3 })
        XCTAssertEqual(sink.state, .silent)
    }
}

final class BenchHelperTests: XCTestCase {
    func testMixingCostAndLatencyFigures() throws {
        let cost = AudioBenchmark.mixingCost(library: Shared.library, voices: 16, periodFrames: 256, periods: 20)
        XCTAssertEqual(cost.count, 20)
        XCTAssertGreaterThan(cost.median, 0)
        var config = AudioConfig()
        config.device = "hw:97,0"
        let (latency, simulated) = try AudioBenchmark.tapLatency(library: Shared.library, config: config, taps: 8)
        XCTAssertTrue(simulated)
        XCTAssertEqual(latency.count, 8)
        XCTAssertGreaterThan(latency.median, 0.005)
        XCTAssertLessThan(latency.max, 0.05)
    }
}
