"""Sound, with the touch that makes it: a tap through the virtio tablet changes the screen
and is heard in QEMU's recording of the sound card; a zombie beaten in Beat Zombies raises
the score and its hit sound is found in the recording."""
import os
import subprocess
import time

from .. import wav
from ..kiosk import FIRST_TILE, SECOND_TILE
from ..results import Failed, require
from . import step


@step("tap through the virtio tablet; sound in the wav")
def tap_and_sound(k):
    before = k.shot("02-before-tap")
    wav_before = wav.wav_data_bytes(k.vb.wav_path)
    # The second of the menu's four tiles (a tap at the very centre falls between tiles).
    x, y = k.tap(*SECOND_TILE)
    time.sleep(2.0)
    after = k.shot("03-after-tap")
    changed = after.differs(before)
    # The sound of the tap: give the guest a moment to play it, then read what QEMU wrote.
    time.sleep(1.0)
    peak, nbytes = wav.wav_peak(k.vb.wav_path, wav_before)
    problems = []
    if changed == 0:
        problems.append(f"the screen did not change after a tap at {x},{y}")
    if peak <= 0.05:
        problems.append(f"silence after the tap: peak {peak:.3f} in {nbytes} bytes of new audio")
    require(not problems, "; ".join(problems))
    return f"tap at {x},{y}: {changed} sampled pixels changed; sound peak {peak:.2f} of full scale"


@step("Beat Zombies: a tap on a zombie raises the score; the hit sound in the wav")
def beat_a_zombie(k):
    """Beat Zombies on the real screen: find a walking zombie in two screendumps, tap it
    through the tablet, and see the score change on screen and the hit sound (the
    built-in zombieHit, exported by `boardwalk sound-export`) in the recorded wav."""
    rc = subprocess.run([k.host_binary, "sound-export", k.sounds_dir, "zombieHit"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    require(rc.returncode == 0, f"boardwalk sound-export failed: {rc.stderr.strip()}")
    hit_wav = os.path.join(k.sounds_dir, "zombieHit.wav")
    k.vb.key("esc")  # home, from whatever the last step opened
    time.sleep(3.0)
    k.tap(*FIRST_TILE)  # Beat Zombies
    w, h = k.size
    time.sleep(12.0)  # zombies walk on from beyond the right edge
    lawn = (int(w * 0.14), int(h * 0.14), int(w * 0.94), h)
    score = (int(w * 0.09), 0, int(w * 0.45), int(h * 0.12))
    attempts = []
    for attempt in range(1, 6):
        a = k.shot(f"09-zombies-{attempt}a")
        time.sleep(0.4)
        b = k.shot(f"09-zombies-{attempt}b")
        # A zombie: the densest motion on the lawn, away from the right edge where
        # they are still walking on.
        spot, moved = a.busiest_motion(b, lawn)
        if spot is None or moved < 600:
            attempts.append(f"{attempt}: nothing walking on the lawn ({moved} pixels moved at most)")
            time.sleep(2.0)
            continue
        # They walk left (~30 px/s here): aim a little ahead.
        x, y = spot[0] - 10, spot[1]
        wav_at_tap = wav.wav_data_bytes(k.vb.wav_path)
        k.vb.tap(x, y, w, h)
        time.sleep(2.5)
        after = k.shot(f"10-after-zombie-tap-{attempt}")
        changed = b.region_differs(after, score)
        # The sound: from 0.5 s before the tap (host and guest clocks are loose) to now,
        # against the 2.5 s before that, when only the music played. One read of the
        # wav; QEMU writes it at 44.1 kHz, 16-bit stereo (4 bytes a frame).
        start = max(0, wav_at_tap - 3 * 44100 * 4)
        rate, recent = wav.wav_channels(k.vb.wav_path, start)
        split = max(0, (wav_at_tap - start) // 4 - rate // 2)
        before, heard = recent[:split], recent[split:]
        found, offset = wav.find_sound(heard, rate, hit_wav)
        baseline, _ = wav.find_sound(before, rate, hit_wav)
        level = float(abs(heard).max()) if len(heard) else 0.0
        attempts.append(f"{attempt}: tap at {x},{y} ({moved} pixels moved around it): {changed} score pixels changed; "
                        f"zombieHit correlation {found:.2f} at {offset - 0.5:+.2f} s from the tap "
                        f"(music only before: {baseline:.2f}; peak {level:.2f})")
        if changed > 0:
            require(found >= 0.3 and found >= 2 * baseline,
                    "the score changed but the hit sound is not in the wav: " + attempts[-1])
            return attempts[-1] + (f" (after {attempt - 1} miss(es))" if attempt > 1 else "")
    raise Failed("no tap raised the score: " + "; ".join(attempts))
