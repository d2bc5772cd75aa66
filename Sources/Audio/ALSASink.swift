#if canImport(Glibc)
import Glibc
#endif
import CALSA
import CALSAQuiet
import Platform
import Synchronization

/// A failed alsa-lib call, naming the call and the device ("snd_pcm_open default").
public struct AudioDeviceError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let device: String
    /// Negative errno as alsa-lib returns it.
    public let code: Int32
    public init(_ call: String, _ device: String, _ code: Int32) {
        self.call = call
        self.device = device
        self.code = code
    }
    public var description: String { "\(call) \(device): \(String(cString: snd_strerror(code))) (\(code))" }
}

/// alsa-lib prints its own errors to stderr ("Unknown PCM default") on every failed open:
/// with a reopen every few seconds that would flood the journal. Our errors already say
/// what failed, so its lines go to the debug log instead (the handler is per thread).
func quietALSALibraryMessages() {
    boardwalk_alsa_quiet { line in
        guard let line else { return }
        Log.debug("alsa-lib \(String(cString: line))")
    }
}

/// The PCM calls the sink makes, so tests can put a fake device with scripted faults
/// behind the real sink loop. All return negative errno values the way alsa-lib does.
public protocol PCMOutput: AnyObject {
    var periodFrames: Int { get }
    var bufferFrames: Int { get }
    /// Writes interleaved stereo 16-bit frames; frames written or a negative errno.
    func write(_ samples: UnsafePointer<Int16>, frames: Int) -> Int
    /// Frames the device could take now, or a negative errno.
    func available() -> Int
    /// Waits until `available()` reaches the wake-up level set at open, up to timeout ms.
    func wait(timeoutMilliseconds: Int32) -> Int32
    /// snd_pcm_recover: 0 when the stream runs again, else a negative errno.
    func recover(_ error: Int32) -> Int32
}

public typealias PCMOpener = @Sendable (AudioConfig) throws(AudioDeviceError) -> any PCMOutput

/// The real PCM: a playback stream, S16_LE stereo 48 kHz interleaved, blocking.
/// Used by one thread at a time: opened, then handed to the audio thread.
public final class ALSAPCM: PCMOutput, @unchecked Sendable {
    private let handle: OpaquePointer
    public let periodFrames: Int
    public let bufferFrames: Int
    public let name: String

    public static let opener: PCMOpener = { config throws(AudioDeviceError) in try ALSAPCM(config: config) }

    public init(config: AudioConfig) throws(AudioDeviceError) {
        name = config.device
        quietALSALibraryMessages()
        var pcm: OpaquePointer?
        var rc = snd_pcm_open(&pcm, config.device, SND_PCM_STREAM_PLAYBACK, 0)
        guard rc >= 0, let pcm else { throw AudioDeviceError("snd_pcm_open", config.device, rc) }
        var hw: OpaquePointer?
        snd_pcm_hw_params_malloc(&hw)
        var sw: OpaquePointer?
        snd_pcm_sw_params_malloc(&sw)
        defer {
            snd_pcm_hw_params_free(hw)
            snd_pcm_sw_params_free(sw)
        }
        func check(_ call: String, _ value: Int32) throws(AudioDeviceError) {
            if value < 0 {
                snd_pcm_close(pcm)
                throw AudioDeviceError(call, config.device, value)
            }
        }
        try check("snd_pcm_hw_params_any", snd_pcm_hw_params_any(pcm, hw))
        // A plug device may convert the rate; a raw hw device must do 48 kHz itself.
        try check("snd_pcm_hw_params_set_rate_resample", snd_pcm_hw_params_set_rate_resample(pcm, hw, 1))
        try check("snd_pcm_hw_params_set_access", snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED))
        try check("snd_pcm_hw_params_set_format", snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE))
        try check("snd_pcm_hw_params_set_channels", snd_pcm_hw_params_set_channels(pcm, hw, 2))
        try check("snd_pcm_hw_params_set_rate 48000", snd_pcm_hw_params_set_rate(pcm, hw, UInt32(AudioFormat.sampleRate), 0))
        var period = snd_pcm_uframes_t(max(16, config.periodFrames))
        var direction: Int32 = 0
        try check("snd_pcm_hw_params_set_period_size_near", snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &direction))
        var buffer = period * snd_pcm_uframes_t(max(2, config.periods))
        try check("snd_pcm_hw_params_set_buffer_size_near", snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer))
        try check("snd_pcm_hw_params", snd_pcm_hw_params(pcm, hw))
        snd_pcm_hw_params_get_period_size(hw, &period, &direction)
        snd_pcm_hw_params_get_buffer_size(hw, &buffer)
        periodFrames = Int(period)
        bufferFrames = Int(buffer)
        try check("snd_pcm_sw_params_current", snd_pcm_sw_params_current(pcm, sw))
        // Start as soon as one period is queued: the sink fills the rest at once.
        try check("snd_pcm_sw_params_set_start_threshold", snd_pcm_sw_params_set_start_threshold(pcm, sw, period))
        // Wake the writer when queued audio falls to (queuedPeriods - 1) periods.
        let queued = config.queuedPeriods(bufferFrames: bufferFrames, periodFrames: periodFrames)
        let wake = max(period, buffer - snd_pcm_uframes_t(queued - 1) * period)
        try check("snd_pcm_sw_params_set_avail_min", snd_pcm_sw_params_set_avail_min(pcm, sw, wake))
        try check("snd_pcm_sw_params", snd_pcm_sw_params(pcm, sw))
        try check("snd_pcm_prepare", snd_pcm_prepare(pcm))
        handle = pcm
        rc = 0
    }

    deinit { snd_pcm_close(handle) }

    public func write(_ samples: UnsafePointer<Int16>, frames: Int) -> Int {
        snd_pcm_writei(handle, samples, snd_pcm_uframes_t(frames))
    }

    public func available() -> Int { snd_pcm_avail_update(handle) }

    public func wait(timeoutMilliseconds: Int32) -> Int32 { snd_pcm_wait(handle, timeoutMilliseconds) }

    public func recover(_ error: Int32) -> Int32 { snd_pcm_recover(handle, error, 1) }
}

/// Sets and unmutes a playback control with the simple-element API: a kiosk whose mixer
/// boots muted (AC97, some HATs) would otherwise be silent.
public enum ALSAMixerControl {
    public static func apply(card: String, control: String, volumePercent: Int) throws(AudioDeviceError) {
        quietALSALibraryMessages()
        var mixer: OpaquePointer?
        var rc = snd_mixer_open(&mixer, 0)
        guard rc >= 0, let mixer else { throw AudioDeviceError("snd_mixer_open", card, rc) }
        defer { snd_mixer_close(mixer) }
        rc = snd_mixer_attach(mixer, card)
        guard rc >= 0 else { throw AudioDeviceError("snd_mixer_attach", card, rc) }
        rc = snd_mixer_selem_register(mixer, nil, nil)
        guard rc >= 0 else { throw AudioDeviceError("snd_mixer_selem_register", card, rc) }
        rc = snd_mixer_load(mixer)
        guard rc >= 0 else { throw AudioDeviceError("snd_mixer_load", card, rc) }
        var id: OpaquePointer?
        snd_mixer_selem_id_malloc(&id)
        defer { snd_mixer_selem_id_free(id) }
        snd_mixer_selem_id_set_index(id, 0)
        snd_mixer_selem_id_set_name(id, control)
        guard let element = snd_mixer_find_selem(mixer, id) else {
            throw AudioDeviceError("snd_mixer_find_selem \(control)", card, -ENOENT)
        }
        if snd_mixer_selem_has_playback_volume(element) != 0 {
            var low = 0, high = 0
            snd_mixer_selem_get_playback_volume_range(element, &low, &high)
            let percent = max(0, min(100, volumePercent))
            rc = snd_mixer_selem_set_playback_volume_all(element, low + (high - low) * percent / 100)
            guard rc >= 0 else { throw AudioDeviceError("snd_mixer_selem_set_playback_volume_all \(control)", card, rc) }
        }
        if snd_mixer_selem_has_playback_switch(element) != 0 {
            rc = snd_mixer_selem_set_playback_switch_all(element, 1)
            guard rc >= 0 else { throw AudioDeviceError("snd_mixer_selem_set_playback_switch_all \(control)", card, rc) }
        }
    }
}

/// The audio thread: renders the mixer a period at a time and writes it to the PCM.
/// Underruns and suspends are recovered; a device that fails or vanishes turns into
/// silence paced by the clock (the mixer keeps running, so commands never pile up) and is
/// reopened every few seconds. Nothing here ever waits on the main thread.
public final class ALSASink: @unchecked Sendable {
    public enum State: Int, Sendable { case stopped, playing, silent }

    public let config: AudioConfig
    private let mixer: Mixer
    private let opener: PCMOpener
    private let running = Atomic<Bool>(false)
    private let stateValue = Atomic<Int>(State.stopped.rawValue)
    private let written = Atomic<Int>(0)
    private let recovered = Atomic<Int>(0)
    private let lost = Atomic<Int>(0)
    private let opened = Atomic<Int>(0)
    /// Tap-to-sound latencies in seconds, produced by the audio thread.
    public let latencies = SPSCQueue<Double>(capacity: 4096)
    private var thread: pthread_t? = nil

    // Audio-thread state.
    private var pcm: (any PCMOutput)? = nil
    private var buffer: UnsafeMutablePointer<Int16>
    private var bufferCapacity: Int
    private var loggedMissing = false
    private var loggedLongPeriods = false

    public init(mixer: Mixer, config: AudioConfig, opener: @escaping PCMOpener = ALSAPCM.opener) {
        self.mixer = mixer
        self.config = config
        self.opener = opener
        bufferCapacity = max(4096, config.periodFrames) * 2
        buffer = .allocate(capacity: bufferCapacity)
    }

    deinit {
        stop()
        buffer.deallocate()
    }

    public var state: State { State(rawValue: stateValue.load(ordering: .relaxed)) ?? .stopped }
    /// Frames handed to the device (silence while no device is not counted).
    public var framesWritten: Int { written.load(ordering: .relaxed) }
    public var recoveries: Int { recovered.load(ordering: .relaxed) }
    public var deviceLosses: Int { lost.load(ordering: .relaxed) }
    public var opens: Int { opened.load(ordering: .relaxed) }

    public func start() throws(SystemError) {
        guard !running.load(ordering: .relaxed) else { return }
        running.store(true, ordering: .relaxed)
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            let sink = Unmanaged<ALSASink>.fromOpaque(raw!).takeRetainedValue()
            nameCurrentThread("sound")
            sink.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<ALSASink>.fromOpaque(context).release()
            running.store(false, ordering: .relaxed)
            throw SystemError("pthread_create", "audio", errno: rc)
        }
        thread = tid
        if let priority = config.realtimePriority {
            var param = sched_param(sched_priority: priority)
            if pthread_setschedparam(tid, SCHED_FIFO, &param) != 0 {
                Log.info("audio: no real-time priority for the audio thread; running at normal priority")
            }
        }
    }

    /// Stops the thread and closes the device; waits for at most one period to finish.
    public func stop() {
        guard running.exchange(false, ordering: .relaxed), let tid = thread else { return }
        pthread_join(tid, nil)
        thread = nil
    }

    // MARK: - Audio thread

    private func run() {
        var nextOpen = 0.0
        var silentDeadline = monotonicSeconds()
        while running.load(ordering: .relaxed) {
            if pcm == nil {
                let now = monotonicSeconds()
                if now >= nextOpen {
                    nextOpen = now + config.reopenInterval
                    openDevice()
                    silentDeadline = monotonicSeconds()
                }
            }
            if let device = pcm {
                if !playPeriod(device) { closeDevice() }
            } else {
                // No device: run the mixer at real-time pace into nothing (voices end and
                // music moves on as if heard), in large chunks: nobody hears the latency,
                // and a kiosk without a card should not wake 188 times a second for it.
                let frames = max(config.periodFrames, 2048)
                mixer.render(into: buffer, frames: min(frames, bufferCapacity / 2))
                silentDeadline += Double(frames) / Double(AudioFormat.sampleRate)
                // Far behind (the machine was suspended): restart the clock, don't catch up.
                if silentDeadline < monotonicSeconds() - 0.5 { silentDeadline = monotonicSeconds() }
                sleep(until: silentDeadline)
            }
        }
        pcm = nil
        stateValue.store(State.stopped.rawValue, ordering: .relaxed)
    }

    private func openDevice() {
        do {
            let target = try SoundOutput.resolve(config.device, cards: config.device == SoundOutput.firstUSBCard ? SoundCards.list() : [])
            var resolved = config
            resolved.device = target.pcm
            let device = try opener(resolved)
            for control in config.mixerControls {
                do {
                    try ALSAMixerControl.apply(card: target.mixerCard, control: control, volumePercent: config.mixerVolume)
                } catch {
                    Log.warning("audio: cannot set mixer control \(control): \(error)")
                }
            }
            if device.periodFrames * 2 > bufferCapacity {
                // Allocation happens only here, at (re)open, never while mixing.
                buffer.deallocate()
                bufferCapacity = device.periodFrames * 2
                buffer = .allocate(capacity: bufferCapacity)
            }
            pcm = device
            opened.add(1, ordering: .relaxed)
            stateValue.store(State.playing.rawValue, ordering: .relaxed)
            loggedMissing = false
            let name = target.pcm == config.device ? config.device : "\(config.device) (\(target.pcm))"
            Log.notice("audio: \(name) open, \(device.periodFrames)-frame periods, \(device.bufferFrames)-frame buffer")
            if device.periodFrames * 2 > config.periodFrames * 3, !loggedLongPeriods {
                // A device that keeps its own periods (alsa-lib's default through dmix: 1024)
                // makes every tap's sound that much later than the profile promises.
                loggedLongPeriods = true
                let queued = config.queuedPeriods(bufferFrames: device.bufferFrames, periodFrames: device.periodFrames)
                let late = Double(device.periodFrames * queued) / Double(AudioFormat.sampleRate) * 1000
                Log.warning("audio: \(config.device) plays \(device.periodFrames)-frame periods, not the \(config.periodFrames) asked: "
                            + "sounds start up to \(Int(late)) ms after the tap. alsa-lib's default mixes through dmix, which keeps "
                            + "its own; name the card instead (plughw:CARD=..., or usb for the first USB card)")
            }
        } catch {
            stateValue.store(State.silent.rawValue, ordering: .relaxed)
            if !loggedMissing {
                loggedMissing = true
                Log.warning("audio: no sound output (\(error)); running silent, retrying every \(config.reopenInterval) s")
            }
        }
    }

    private func closeDevice() {
        pcm = nil
        lost.add(1, ordering: .relaxed)
        stateValue.store(State.silent.rawValue, ordering: .relaxed)
    }

    /// One period: wait for room, render, write. False when the device is gone.
    private func playPeriod(_ device: any PCMOutput) -> Bool {
        let period = min(device.periodFrames, bufferCapacity / 2)
        let queuedLimit = config.queuedPeriods(bufferFrames: device.bufferFrames, periodFrames: period) * period
        // Wait until the period fits under the queue limit.
        var avail = 0
        while running.load(ordering: .relaxed) {
            avail = device.available()
            if avail < 0 {
                guard handle(Int32(avail), device) else { return false }
                continue
            }
            if device.bufferFrames - avail + period <= queuedLimit { break }
            let rc = device.wait(timeoutMilliseconds: 100)
            if rc < 0 { guard handle(rc, device) else { return false } }
        }
        guard running.load(ordering: .relaxed) else { return true }
        let queuedBefore = max(0, device.bufferFrames - avail)
        mixer.render(into: buffer, frames: period)
        var offset = 0
        var firstWriteTime = 0.0
        while offset < period && running.load(ordering: .relaxed) {
            let n = device.write(buffer + offset * 2, frames: period - offset)
            if n < 0 {
                guard handle(Int32(n), device) else { return false }
                continue
            }
            if offset == 0 { firstWriteTime = monotonicSeconds() }
            offset += n
            written.add(n, ordering: .relaxed)
        }
        for i in 0..<mixer.onsetCount {
            let onset = mixer.onset(i)
            let queued = Double(queuedBefore + onset.frame) / Double(AudioFormat.sampleRate)
            latencies.push(firstWriteTime - onset.commandTime + queued)
        }
        return true
    }

    /// EPIPE (underrun), ESTRPIPE (suspend) and EINTR are recovered; anything else, or a
    /// failed recovery, means the device is gone. True to carry on.
    private func handle(_ error: Int32, _ device: any PCMOutput) -> Bool {
        if error == -EAGAIN { return true }
        if error == -EPIPE || error == -ESTRPIPE || error == -EINTR {
            let rc = device.recover(error)
            if rc >= 0 {
                recovered.add(1, ordering: .relaxed)
                return true
            }
            Log.warning("audio: \(config.device) did not recover: \(AudioDeviceError("snd_pcm_recover", config.device, rc))")
            return false
        }
        Log.warning("audio: \(config.device) lost: \(AudioDeviceError("snd_pcm_writei", config.device, error)); silent until it returns")
        return false
    }

    private func sleep(until deadline: Double) {
        var request = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - Double(Int(deadline))) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &request, nil) == EINTR {}
    }
}
