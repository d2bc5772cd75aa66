import XCTest
import Synchronization
@testable import Audio
import Platform

/// Collects log lines from any thread.
final class LogCapture: @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    private let previous = Log.sink
    private let previousInterval = Log.repeatInterval
    init() {
        Log.sink = { [self] line in lines.withLock { $0.append(line) } }
    }
    func restore() {
        Log.sink = previous
        Log.repeatInterval = previousInterval
    }
    var all: [String] { lines.withLock { $0 } }
    func count(_ text: String) -> Int { all.filter { $0.contains(text) }.count }
}

func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(2000)
    }
    return condition()
}

final class ALSATests: XCTestCase {
    func rawPath() -> String { NSTemporaryDirectory() + "boardwalk-pcm-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).raw" }

    func readRaw(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Int16(littleEndian: $0) }
    }

    func testFilePCMCarriesTheMixedSamples() throws {
        let path = rawPath()
        defer { unlink(path) }
        var config = AudioConfig()
        config.device = "file:'\(path)',raw"
        let clip = sineClip(frequency: 1000, amplitude: 0.5, seconds: 0.1)
        // In a scope: the file PCM writes its last periods when it is closed, i.e. when
        // the last reference to it goes.
        do {
            let pcm = try ALSAPCM(config: config)
            XCTAssertEqual(pcm.periodFrames, 256)
            XCTAssertEqual(pcm.bufferFrames, 1024)
            let mixer = Mixer()
            mixer.play(clip, gain: 1, pan: -0.5)
            let sink = ALSASink(mixer: mixer, config: config, opener: { _ in pcm })
            try sink.start()
            XCTAssertTrue(waitFor(5) { sink.framesWritten >= 9600 })
            sink.stop()
            XCTAssertEqual(sink.state, .stopped)
        }

        let samples = try readRaw(path)
        XCTAssertGreaterThanOrEqual(samples.count, 9600 * 2)
        let angle = Float(0.25) * Float.pi / 2  // pan -0.5
        let leftGain = cos(angle) * Float(2).squareRoot()
        let rightGain = sin(angle) * Float(2).squareRoot()
        var worst = 0
        let delay = Mixer.lookaheadFrames
        XCTAssertTrue(samples[0..<(2 * delay)].allSatisfy { $0 == 0 })
        for frame in 0..<4800 {
            let expectedLeft = Int((clip.sample(frame: frame, channel: 0) * leftGain * 32767).rounded())
            let expectedRight = Int((clip.sample(frame: frame, channel: 0) * rightGain * 32767).rounded())
            worst = max(worst, abs(Int(samples[2 * (frame + delay)]) - expectedLeft),
                        abs(Int(samples[2 * (frame + delay) + 1]) - expectedRight))
        }
        XCTAssertLessThanOrEqual(worst, 2, "the file holds the clip, from its first sample, panned")
        XCTAssertTrue(samples[((4800 + delay) * 2)..<(9600 * 2)].allSatisfy { $0 == 0 }, "then silence")
    }

    func testNullPCMOpensAndTakesPeriods() throws {
        var config = AudioConfig()
        config.device = "null"
        config.periodFrames = 512
        config.periods = 3
        let mixer = Mixer()
        let sink = ALSASink(mixer: mixer, config: config)
        try sink.start()
        XCTAssertTrue(waitFor(5) { sink.framesWritten >= 48000 })
        XCTAssertEqual(sink.state, .playing)
        sink.stop()
        XCTAssertEqual(sink.opens, 1)
    }

    func testNoSoundCardRunsSilentAndSaysSoOnce() throws {
        let log = LogCapture()
        defer { log.restore() }
        Log.repeatInterval = 0  // the sink itself must not repeat the message
        var config = AudioConfig()
        config.device = "hw:97,0"
        config.reopenInterval = 0.02
        let mixer = Mixer()
        let sink = ALSASink(mixer: mixer, config: config)
        try sink.start()
        defer { sink.stop() }
        XCTAssertTrue(waitFor(2) { sink.state == .silent })
        // The mixer still runs in real time: commands are taken and voices finish.
        let clip = sineClip(frequency: 500, amplitude: 0.2, seconds: 0.05)
        mixer.play(clip)
        XCTAssertTrue(waitFor(2) { mixer.activeVoices == 1 })
        XCTAssertTrue(waitFor(2) { mixer.activeVoices == 0 })
        usleep(200_000)  // several reopen attempts
        XCTAssertEqual(log.count("no sound output"), 1, "\(log.all)")
        XCTAssertEqual(sink.framesWritten, 0)
    }

    func testUSBIsTheFirstUSBCardOpenedThroughPlughw() throws {
        let cards = [SoundCard(index: 0, id: "vc4hdmi0", driver: "vc4-hdmi"),
                     SoundCard(index: 1, id: "vc4hdmi1", driver: "vc4-hdmi"),
                     SoundCard(index: 2, id: "Device", driver: "USB-Audio"),
                     SoundCard(index: 3, id: "Speaker", driver: "USB-Audio")]
        XCTAssertEqual(try SoundOutput.resolve("usb", cards: cards),
                       SoundOutput.Target(pcm: "plughw:CARD=Device,DEV=0", mixerCard: "hw:CARD=Device"))
        XCTAssertThrowsError(try SoundOutput.resolve("usb", cards: Array(cards.prefix(2)))) { error in
            XCTAssertEqual("\(error)", "no USB sound card (cards: vc4hdmi0 (vc4-hdmi), vc4hdmi1 (vc4-hdmi)) for usb: No such device (-19)")
        }
        XCTAssertThrowsError(try SoundOutput.resolve("usb", cards: [])) { error in
            XCTAssertTrue("\(error)".hasPrefix("no USB sound card (no sound card at all)"), "\(error)")
        }
    }

    func testMixerControlsGoToThePCMsOwnCard() throws {
        let cases = [("plughw:CARD=Headphones,DEV=0", "hw:CARD=Headphones"), ("default:CARD=vc4hdmi0", "hw:CARD=vc4hdmi0"),
                     ("hw:1,0", "hw:1"), ("plughw:2", "hw:2"), ("default", "default"), ("null", "default"),
                     ("file:'/tmp/x.raw',raw", "default"), ("dmix:1", "default")]
        for (pcm, card) in cases {
            XCTAssertEqual(try SoundOutput.resolve(pcm, cards: []), SoundOutput.Target(pcm: pcm, mixerCard: card), pcm)
        }
    }

    func testUSBWithoutAUSBCardRunsSilentAndSaysWhy() throws {
        let cards = SoundCards.list()  // the real control interface: none here, or this machine's
        try XCTSkipIf(cards.contains { $0.driver == "USB-Audio" }, "this machine has a USB sound card: \(cards)")
        let log = LogCapture()
        defer { log.restore() }
        Log.repeatInterval = 0
        var config = AudioConfig()
        config.device = "usb"
        config.reopenInterval = 0.02
        let sink = ALSASink(mixer: Mixer(), config: config)
        try sink.start()
        defer { sink.stop() }
        XCTAssertTrue(waitFor(2) { sink.state == .silent })
        usleep(100_000)  // several reopen attempts, each listing the cards again
        XCTAssertEqual(log.count("audio: no sound output (no USB sound card"), 1, "\(log.all)")
    }

    func testADeviceThatKeepsLongerPeriodsIsNamedOnce() throws {
        let log = LogCapture()
        defer { log.restore() }
        Log.repeatInterval = 0
        var config = AudioConfig()
        config.device = "fake"
        config.periodFrames = 64  // the fake device keeps 256 x 4
        config.reopenInterval = 0.02
        let opener = FakeOpener([FakePCM([.fail(-ENODEV)]), FakePCM([])])
        let sink = ALSASink(mixer: Mixer(), config: config, opener: opener.opener)
        try sink.start()
        defer { sink.stop() }
        XCTAssertTrue(waitFor(2) { sink.opens == 2 && sink.framesWritten > 0 })
        let warnings = log.all.filter { $0.contains("plays 256-frame periods, not the 64 asked") }
        XCTAssertEqual(warnings.count, 1, "\(log.all)")
        XCTAssertTrue(warnings.first?.contains("up to 21 ms after the tap") == true, "\(warnings)")
        XCTAssertEqual(log.count("audio: fake open, 256-frame periods, 1024-frame buffer"), 2)
    }

    func testALSALibraryErrorsGoToTheDebugLog() {
        let log = LogCapture()
        let minimum = Log.minimum
        Log.minimum = .debug
        defer { log.restore(); Log.minimum = minimum }
        var config = AudioConfig()
        config.device = "boardwalk_no_such_pcm"
        XCTAssertThrowsError(try ALSAPCM(config: config))
        // alsa-lib's own line ("Unknown PCM ..."), formatted by the C handler, at debug level.
        let lines = log.all.filter { $0.contains("alsa-lib") }
        XCTAssertTrue(lines.contains { $0.hasPrefix("<7>alsa-lib ") && $0.contains("boardwalk_no_such_pcm") }, "\(log.all)")
    }

    func testMixerControlErrorsNameTheCardAndControl() {
        XCTAssertThrowsError(try ALSAMixerControl.apply(card: "hw:97", control: "PCM", volumePercent: 80)) { error in
            XCTAssertTrue("\(error)".contains("hw:97"), "\(error)")
        }
    }

    func testEngineDrivesTheFilePCM() throws {
        let path = rawPath()
        defer { unlink(path) }
        var config = AudioConfig()
        config.device = "file:'\(path)',raw"
        let engine = try AudioEngine(config: config, library: Shared.library)
        // The file device takes frames as fast as they come: the sink writes silence from
        // its start until these requests reach it, more of it when the main thread waits
        // for a busy core. Half a second from the sound's onset is what is checked.
        let asked = engine.sink.framesWritten
        engine.soundBoard.playMusic(.menu)
        engine.soundBoard.play(.zombieHit, gain: 1, pan: 0.3)
        XCTAssertTrue(waitFor(10) { engine.sink.framesWritten >= asked + 4096 + 24000 })
        engine.setMasterVolume(0.5)
        engine.stop()
        XCTAssertEqual(engine.sink.state, .stopped)
        let samples = try readRaw(path).map { Float($0) / 32767 }
        let onset = try XCTUnwrap(samples.firstIndex { $0 != 0 }, "no sound in the file")
        XCTAssertLessThanOrEqual(onset, (asked + 4096) * 2, "heard within a buffer or so of the request")
        XCTAssertGreaterThan(rms(Array(samples[onset..<min(samples.count, onset + 48000)])), 0.02)
        XCTAssertLessThan(peak(samples), 1)
        XCTAssertEqual(engine.takeLatencies().count, 2)
    }

    func testEngineMakesMusicInTheBackgroundAndPlaysItWhenReady() throws {
        let path = rawPath()
        defer { unlink(path) }
        var config = AudioConfig()
        config.device = "file:'\(path)',raw"
        config.musicThreadNice = 0  // a debug build on a busy machine: don't starve it
        let lean = SoundLibrary(overrides: [:], renderMusic: false)
        XCTAssertNil(lean.readyClip(.menu))
        let engine = try AudioEngine(config: config, library: lean)
        XCTAssertFalse(engine.musicReady)
        let asked = engine.sink.framesWritten
        engine.soundBoard.playMusic(.menu)  // not made yet: must not block
        XCTAssertTrue(waitFor(120) { lean.readyClip(.menu) != nil }, "the menu tune is made in the background")
        let readyAt = engine.sink.framesWritten
        XCTAssertTrue(waitFor(10) { engine.sink.framesWritten > readyAt + 48000 })
        engine.stop()
        let samples = try readRaw(path).map { Float($0) / 32767 }
        XCTAssertEqual(peak(Array(samples[(asked * 2)..<(min(readyAt, asked + 2000) * 2)])), 0, "silent while waiting")
        XCTAssertGreaterThan(rms(Array(samples[((readyAt + 24000) * 2)..<((readyAt + 48000) * 2)])), 0.02, "then the tune")
    }
}
