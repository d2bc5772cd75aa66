"""Sound analysis of what QEMU's wav audiodev recorded (16-bit PCM): levels, and where a
known clip sounds in the recording. Python 3 and numpy."""
import os
import struct


def wav_peak(path, start_byte=0):
    """Peak |sample| (0..1) of a 16-bit PCM wav from QEMU's wav audiodev, from start_byte
    of the sample data on, and how many bytes of samples that was."""
    _, samples = wav_channels(path, start_byte)
    return (float(abs(samples).max()) if samples.size else 0.0), samples.size * 2


def wav_channels(path, start_byte=0, end_byte=None):
    """(rate, samples) of a 16-bit PCM wav's data from start_byte (aligned down to a
    frame) to end_byte: a numpy float array in -1..1, one column per channel."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError(f"{path}: not a wav file")
    pos, fmt, body = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        if cid == b"fmt ":
            fmt = struct.unpack_from("<HHIIHH", data, pos + 8)
        if cid == b"data":
            body = data[pos + 8:]  # QEMU fills in the size only when it exits
            break
        pos += 8 + size
    if fmt is None or body is None or fmt[5] != 16:
        raise ValueError(f"{path}: no 16-bit PCM data")
    channels, rate = fmt[1], fmt[2]
    frame = 2 * channels
    start = max(0, start_byte) // frame * frame
    end = len(body) if end_byte is None else min(len(body), end_byte)
    end = start + max(0, end - start) // frame * frame
    pcm = np.frombuffer(body[start:end], dtype="<i2").astype(np.float64) / 32768.0
    return rate, pcm.reshape(-1, channels)


def find_sound(recording, rate, clip_path, highpass=250.0):
    """Where a clip (a wav file) sounds in a recording (wav_channels' array), by normalized
    cross-correlation on each channel: (best correlation 0..1, its offset in seconds).
    Gain, pan and other sounds mixed in only lower the figure. Both are high-passed first,
    so the music's kick drum does not pass for an effect's thump. The clip is resampled to
    the recording's rate (QEMU records at 44.1 kHz what the guest plays at 48 kHz)."""
    import numpy as np
    clip_rate, clip = wav_channels(clip_path)
    clip = clip.mean(axis=1)
    if clip_rate != rate:
        t = np.arange(int(len(clip) * rate / clip_rate)) * (clip_rate / rate)
        clip = np.interp(t, np.arange(len(clip)), clip)
    n, m = len(recording), len(clip)
    if n < m or not np.any(clip):
        return 0.0, 0.0
    size = 1 << int(np.ceil(np.log2(n + m)))
    keep = np.fft.rfftfreq(size, 1.0 / rate) >= highpass
    c = np.fft.irfft(np.fft.rfft(clip, size) * keep, size)[:m]
    spectrum_c = np.conj(np.fft.rfft(c, size))
    best, at = 0.0, 0
    for channel in recording.T:
        x = np.fft.irfft(np.fft.rfft(channel, size) * keep, size)[:n]
        dots = np.fft.irfft(np.fft.rfft(x, size) * spectrum_c, size)[:n - m + 1]
        energy = np.concatenate(([0.0], np.cumsum(x ** 2)))
        window = np.sqrt(np.maximum(energy[m:] - energy[:-m], 1e-12))
        ncc = dots / (window * np.sqrt(np.sum(c ** 2)))
        ncc[window < 1e-4 * np.sqrt(m)] = 0.0  # near-silence correlates with anything
        i = int(np.argmax(ncc))
        if ncc[i] > best:
            best, at = float(ncc[i]), i
    return best, at / rate


def wav_data_bytes(path):
    """Bytes of sample data written so far (the header is 44 bytes)."""
    try:
        return max(os.path.getsize(path) - 44, 0)
    except OSError:
        return 0

