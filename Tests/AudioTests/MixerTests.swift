import XCTest
import Synchronization
@testable import Audio

final class MixerTests: XCTestCase {
    func testOnsetSampleIsTheClipsFirstSample() {
        // 100 frames of silence, then a step to 0.5.
        var samples = [Float](repeating: 0, count: 100) + [Float](repeating: 0.5, count: 400)
        samples[100] = 0.25
        let clip = AudioClip(name: "step", channels: 1, interleaved: samples)
        let mixer = Mixer()
        mixer.play(clip)
        let delay = Mixer.lookaheadFrames
        let out = left(renderFloat(mixer, frames: 256))
        XCTAssertEqual(out.firstIndex { abs($0) > 1e-6 }, 100 + delay, "the clip's first sample, after the limiter's look-ahead")
        XCTAssertEqual(out[100 + delay], 0.25, accuracy: 1e-4)
        XCTAssertEqual(out[101 + delay], 0.5, accuracy: 1e-4)
        XCTAssertEqual(mixer.onsetCount, 1)
        XCTAssertEqual(mixer.onset(0).frame, 0)

        // A command arriving between renders starts at the next render's first frame.
        let later = Mixer()
        _ = renderFloat(later, frames: 300)
        later.play(AudioClip(name: "click", channels: 1, interleaved: [0.5, 0.5, 0.5]))
        let next = left(renderFloat(later, frames: 64))
        XCTAssertEqual(next[delay - 1], 0, accuracy: 1e-6)
        XCTAssertEqual(next[delay], 0.5, accuracy: 1e-4)
        XCTAssertEqual(next[delay + 3], 0, accuracy: 1e-6)
    }

    func testLevelsGainPanAndMaster() {
        let clip = sineClip(frequency: 1000, amplitude: 0.25, seconds: 0.2)
        func levels(gain: Float, pan: Float, master: Float = 1) -> (Float, Float) {
            let mixer = Mixer()
            mixer.setMasterVolume(master, fade: 0)
            mixer.play(clip, gain: gain, pan: pan)
            let out = renderFloat(mixer, frames: 4800)
            return (peak(left(out)), peak(right(out)))
        }
        let centre = levels(gain: 1, pan: 0)
        XCTAssertEqual(centre.0, 0.25, accuracy: 0.002, "a centred mono voice plays at its own level")
        XCTAssertEqual(centre.1, 0.25, accuracy: 0.002)
        let half = levels(gain: 0.5, pan: 0)
        XCTAssertEqual(half.0, 0.125, accuracy: 0.002)
        let hardLeft = levels(gain: 1, pan: -1)
        XCTAssertEqual(hardLeft.0, 0.25 * Float(2).squareRoot(), accuracy: 0.003)
        XCTAssertEqual(hardLeft.1, 0, accuracy: 1e-6)
        let quiet = levels(gain: 1, pan: 0, master: 0.5)
        XCTAssertEqual(quiet.0, 0.125, accuracy: 0.002)
        // RMS of a sine is peak / sqrt 2.
        let mixer = Mixer()
        mixer.play(clip)
        XCTAssertEqual(rms(left(renderFloat(mixer, frames: 4800))), 0.25 / Float(2).squareRoot(), accuracy: 0.002)
    }

    func testStereoClipBalance() {
        let frames = 480
        var samples: [Float] = []
        for _ in 0..<frames { samples += [0.3, -0.2] }
        let clip = AudioClip(name: "stereo", channels: 2, interleaved: samples)
        let mixer = Mixer()
        mixer.play(clip, pan: 0.5)
        let out = renderFloat(mixer, frames: 100)
        XCTAssertEqual(out[2 * Mixer.lookaheadFrames], 0.15, accuracy: 1e-3)
        XCTAssertEqual(out[2 * Mixer.lookaheadFrames + 1], -0.2, accuracy: 1e-3)
    }

    func testLoopWrapsExactlyWithoutAStep() {
        // 480 frames = exactly 10 cycles of 1 kHz: a seamless loop.
        let clip = sineClip(frequency: 1000, amplitude: 0.4, seconds: 0.01)
        let mixer = Mixer()
        mixer.play(clip, loop: true)
        let delay = Mixer.lookaheadFrames
        let out = Array(left(renderFloat(mixer, frames: 2000 + delay))[delay...])
        for i in 0..<2000 {
            XCTAssertEqual(out[i], clip.sample(frame: i % 480, channel: 0), accuracy: 1e-5)
        }
        let normal = maxStep(out[0..<470])
        XCTAssertLessThanOrEqual(maxStep(out[470..<490]), normal * 1.01)
    }

    func testSixteenLoudVoicesNeverPassFullScale() {
        let loud = (0..<16).map { sineClip(frequency: 110 * Double($0 + 1), amplitude: 1, seconds: 0.5, name: "loud\($0)") }
        let mixer = Mixer(voices: 16)
        for clip in loud { mixer.play(clip, gain: 1, pan: 0, loop: true) }
        let ints = renderInt16(mixer, frames: 48000)
        XCTAssertEqual(mixer.activeVoices, 16)
        XCTAssertFalse(ints.contains(Int16.min), "no sample at negative full scale")
        let floats = renderFloat(mixer, frames: 48000)
        XCTAssertLessThan(peak(floats), 0.9, "the limiter holds the sum at -1 dBFS")
        
        XCTAssertGreaterThan(peak(floats), 0.7, "but the sum is still loud")
        XCTAssertGreaterThan(mixer.limitedFrameCount, 0)
        // Soft, not a hard clip, even at the onset where 16 voices start together: the
        // first output frames already have the gain brought down; no flat tops.
        let firstLeft = stride(from: 0, to: 4800, by: 2).map { Float(ints[$0]) / 32767 }
        XCTAssertLessThan(peak(firstLeft), 0.9)
        var run = 0, longest = 0
        for i in 1..<ints.count / 2 {
            if ints[2 * i] == ints[2 * i - 2] && abs(Int(ints[2 * i])) > 28000 { run += 1; longest = max(longest, run) } else { run = 0 }
        }
        XCTAssertLessThan(longest, 3)
    }

    func testLimiterIsTransparentBelowThreshold() {
        let clip = sineClip(frequency: 440, amplitude: 0.6, seconds: 0.5)
        let mixer = Mixer()
        mixer.play(clip)
        let out = left(renderFloat(mixer, frames: 24000))
        for i in stride(from: Mixer.lookaheadFrames, to: 24000, by: 7) {
            XCTAssertEqual(out[i], clip.sample(frame: i - Mixer.lookaheadFrames, channel: 0), accuracy: 1e-5)
        }
        XCTAssertEqual(mixer.limitedFrameCount, 0)
    }

    func testTheRestingLimiterIsTheSameDelayAsEveryFrameThroughProcess() {
        // Quiet music, a burst far over full scale, then quiet again: one limiter takes every
        // frame through `process`, the other as the mixer does (a delay while resting).
        let frames = 4 * 48000
        var signal = [Float](repeating: 0, count: 2 * frames)
        for i in 0..<frames {
            let t = Float(i) / 48000
            let loud: Float = (i >= 24000 && i < 26000) ? 3 : 0.3
            signal[2 * i] = loud * sinf(2 * .pi * 440 * t)
            signal[2 * i + 1] = loud * 0.5 * sinf(2 * .pi * 660 * t)
        }
        var slow = LookaheadLimiter(sampleRate: 48000)
        var fast = LookaheadLimiter(sampleRate: 48000)
        defer { slow.deallocate(); fast.deallocate() }
        let master: Float = 0.8
        var expected = signal, got = signal
        for i in 0..<frames {
            (expected[2 * i], expected[2 * i + 1]) = slow.process(signal[2 * i] * master, signal[2 * i + 1] * master)
        }
        var restingFrames = 0, restingAgainAt: Int?
        got.withUnsafeMutableBufferPointer { bus in
            var i = 0
            while i < frames {
                let chunkEnd = min(frames, (i / 256 + 1) * 256)  // the mixer's chunks
                while i < chunkEnd {
                    if fast.isResting {
                        if i > 26000 && restingAgainAt == nil { restingAgainAt = i }
                        let done = fast.delay(bus.baseAddress! + 2 * i, count: chunkEnd - i, scale: master)
                        restingFrames += done
                        i += done
                        if i == chunkEnd { break }
                    }
                    (bus[2 * i], bus[2 * i + 1]) = fast.process(bus[2 * i] * master, bus[2 * i + 1] * master)
                    i += 1
                }
            }
        }
        XCTAssertEqual(got, expected, "bit for bit")
        XCTAssertGreaterThan(slow.gain, 0.999)
        XCTAssertGreaterThan(restingFrames, frames / 2, "most frames take the delay")
        let back = try? XCTUnwrap(restingAgainAt)
        XCTAssertNotNil(back, "the limiter rests again after the burst")
        XCTAssertLessThan((back ?? .max) - 26000, 3 * 48000, "within 3 s of the burst: \(String(describing: back))")
    }

    func testVoiceStealingSparesMusicAndTakesTheOldest() {
        let mixer = Mixer(voices: 4)
        let music = sineClip(frequency: 220, amplitude: 0.1, seconds: 1, name: "music")
        let effect = sineClip(frequency: 880, amplitude: 0.1, seconds: 1, name: "effect")
        mixer.play(music, loop: true)
        var handles: [VoiceHandle] = []
        for _ in 0..<3 { handles.append(mixer.play(effect)) }
        _ = renderFloat(mixer, frames: 64)
        XCTAssertEqual(mixer.activeVoices, 4)
        mixer.play(effect, gain: 0.5)
        _ = renderFloat(mixer, frames: 64)
        XCTAssertEqual(mixer.activeVoices, 4)
        XCTAssertEqual(mixer.stolenCount, 1)
        // The stolen one was the first effect: stopping it now changes nothing; the music
        // and the other effects still sound.
        mixer.stop(handles[0])
        _ = renderFloat(mixer, frames: 512)
        XCTAssertEqual(mixer.activeVoices, 4)
        // Many more requests than voices: never more than 4 play.
        for _ in 0..<40 { mixer.play(effect) }
        _ = renderFloat(mixer, frames: 64)
        XCTAssertEqual(mixer.activeVoices, 4)
    }

    func testStealingFadesInsteadOfCutting() {
        let mixer = Mixer(voices: 1)
        let tone = sineClip(frequency: 500, amplitude: 0.5, seconds: 1)
        mixer.play(tone)
        _ = renderFloat(mixer, frames: 100)
        mixer.play(AudioClip(name: "silence", channels: 1, interleaved: [Float](repeating: 0, count: 48000)))
        let out = left(renderFloat(mixer, frames: 600))
        XCTAssertLessThan(maxStep(out[0..<600]), 0.04, "a 5 ms fade, not a cut")
        XCTAssertEqual(peak(Array(out[300...])), 0, accuracy: 1e-6)
    }

    func testFadesStopPauseResume() {
        let tone = sineClip(frequency: 500, amplitude: 0.5, seconds: 2)
        let mixer = Mixer()
        let voice = mixer.play(tone, fadeIn: 0.1)
        let fadeIn = left(renderFloat(mixer, frames: 4800))
        XCTAssertLessThan(peak(Array(fadeIn[0..<480])), 0.06)
        XCTAssertGreaterThan(peak(Array(fadeIn[4300..<4800])), 0.45)
        mixer.pause(voice, fade: 0.01)
        let paused = left(renderFloat(mixer, frames: 4800))
        XCTAssertEqual(peak(Array(paused[600...])), 0, accuracy: 1e-6)
        XCTAssertLessThan(maxStep(paused[0..<600]), 0.07)
        mixer.resume(voice, fade: 0.01)
        let resumed = left(renderFloat(mixer, frames: 4800))
        XCTAssertGreaterThan(peak(Array(resumed[1000...])), 0.45)
        mixer.stop(voice, fadeOut: 0.02)
        let stopped = left(renderFloat(mixer, frames: 4800))
        XCTAssertLessThan(maxStep(stopped[0..<1200]), 0.07, "stop ramps down, no click")
        XCTAssertEqual(peak(Array(stopped[1000...])), 0, accuracy: 1e-6)
        _ = renderFloat(mixer, frames: 16)
        XCTAssertEqual(mixer.activeVoices, 0)
    }

    func testMasterVolumeRamps() {
        let tone = sineClip(frequency: 500, amplitude: 0.5, seconds: 1)
        let mixer = Mixer()
        mixer.play(tone)
        _ = renderFloat(mixer, frames: 480)
        mixer.setMasterVolume(0, fade: 0.05)
        let out = left(renderFloat(mixer, frames: 4800))
        XCTAssertLessThan(maxStep(out[0..<4800]), 0.07)
        XCTAssertEqual(peak(Array(out[2500...])), 0, accuracy: 1e-6)
    }

    func testSlotVoiceWaitsSilentlyThenStartsFromItsFirstSample() {
        let mixer = Mixer()
        let voice = mixer.playSlot(3, gain: 1, loop: true)
        XCTAssertEqual(peak(renderFloat(mixer, frames: 512)), 0)
        XCTAssertEqual(mixer.activeVoices, 1, "the waiting voice holds its place")
        let clip = AudioClip(name: "ramp", channels: 1, interleaved: (0..<100).map { Float($0) / 200 + 0.1 })
        XCTAssertTrue(mixer.fillSlot(3, with: clip))
        XCTAssertFalse(mixer.fillSlot(3, with: clip), "a slot is filled once")
        let out = left(renderFloat(mixer, frames: 256))
        XCTAssertEqual(out[Mixer.lookaheadFrames], 0.1, accuracy: 1e-4)
        XCTAssertEqual(out[Mixer.lookaheadFrames + 100], 0.1, accuracy: 1e-4, "looping")
        mixer.stop(voice, fadeOut: 0.001)
        _ = renderFloat(mixer, frames: 256)
        XCTAssertEqual(mixer.activeVoices, 0)
        // Stopping a voice that is still waiting removes it at once.
        let waiting = mixer.playSlot(4)
        _ = renderFloat(mixer, frames: 16)
        mixer.stop(waiting)
        _ = renderFloat(mixer, frames: 16)
        XCTAssertEqual(mixer.activeVoices, 0)
        // A filled slot plays at once.
        mixer.playSlot(3)
        XCTAssertGreaterThan(peak(renderFloat(mixer, frames: 64)), 0.09)
    }

    func testSPSCQueueAcrossThreads() {
        let queue = SPSCQueue<Int>(capacity: 64)
        let count = 20_000
        let received = Mutex<[Int]>([])
        let consumer = Thread {
            var values: [Int] = []
            values.reserveCapacity(count)
            while values.count < count {
                if let v = queue.pop() { values.append(v) }
            }
            received.withLock { $0 = values }
        }
        consumer.start()
        var next = 0
        while next < count {
            if queue.push(next) { next += 1 }
        }
        while received.withLock({ $0.count }) < count { usleep(1000) }
        let values = received.withLock { $0 }
        XCTAssertEqual(values, Array(0..<count))
    }

    func testFullQueueDropsInsteadOfBlocking() {
        let mixer = Mixer(commandCapacity: 8)
        let clip = sineClip(frequency: 500, amplitude: 0.1, seconds: 0.1)
        for _ in 0..<20 { mixer.play(clip) }
        XCTAssertEqual(mixer.droppedCommands, 12)
    }
}
