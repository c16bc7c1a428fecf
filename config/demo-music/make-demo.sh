#!/usr/bin/env bash
# Regenerates the demo library in this folder: three short synthesized songs (MP3,
# 44.1 kHz stereo, CBR 96 kbps, ID3v2.4 UTF-8 tags) with a synced .lrc beside each.
# Pads, bass, plucked melody and a soft beat are built note by note with sox; espeak-ng
# speaks each lyric line at its timestamp, so lyric sync can be checked by ear.
# Deterministic: sox -R, fixed seeds for the melodies.
# Needs: sox, lame, espeak-ng, python3 (Debian: apt-get install -y sox lame espeak-ng python3).
# Run: config/demo-music/make-demo.sh   (then commit the .mp3 and .lrc files)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ID3="$HERE/../../Tests/Fixtures/write_id3.py"
for tool in sox lame espeak-ng python3; do
    command -v "$tool" >/dev/null || { echo "make-demo: $tool is missing" >&2; exit 1; }
done
exec python3 - "$HERE" "$ID3" <<'PY'
import os, random, shutil, subprocess, sys, tempfile

OUT, ID3 = sys.argv[1], sys.argv[2]
SR = 44100
TMP = tempfile.mkdtemp(prefix="jukebox-demo-")
ARTIST, ALBUM = "Jukebox Demo", "Demo Tapes"

NOTE = {"C": 0, "C#": 1, "Db": 1, "D": 2, "D#": 3, "Eb": 3, "E": 4, "F": 5, "F#": 6,
        "Gb": 6, "G": 7, "G#": 8, "Ab": 8, "A": 9, "A#": 10, "Bb": 10, "B": 11}

def midi(name):            # "C4" -> 60
    return 12 * (int(name[-1]) + 1) + NOTE[name[:-1]]

def hz(m):
    return 440.0 * 2 ** ((m - 69) / 12)

def sox(*args):
    subprocess.run(["sox", "-R", "-V1", *map(str, args)], check=True)

counter = [0]
def tmp(tag):
    counter[0] += 1
    return os.path.join(TMP, f"{tag}{counter[0]:05d}.wav")

def samples(t):
    return round(t * SR)

def rest(n):
    f = tmp("r"); sox("-r", SR, "-c", 1, "-n", "-b", 16, f, "trim", 0, f"{n}s"); return f

def note(kind, freqs, n, attack=0.005, release=0.25):
    """One mono note of n samples: kind pad|pluck|bass|kick|hat."""
    f = tmp("n"); dur = f"{n}s"; secs = n / SR
    rel = min(release, secs * 0.6)
    if kind == "pad":
        synth = []
        for fr in freqs:
            synth += ["sine", f"{fr:.3f}", "triangle", f"{fr * 1.004:.3f}"]
        n_waves = len(synth) // 2
        mix = ",".join(f"{i + 1}v{0.9 / n_waves:.3f}" for i in range(n_waves))
        sox("-r", SR, "-n", "-b", 16, f, "synth", dur, *synth, "remix", mix,
            "tremolo", 4, 15, "fade", "h", min(0.25, secs / 3), dur, rel)
    elif kind == "pluck":
        sox("-r", SR, "-c", 1, "-n", "-b", 16, f, "synth", dur, "pluck", f"{freqs[0]:.3f}",
            "fade", "q", attack, dur, rel)
    elif kind == "bass":
        sox("-r", SR, "-n", "-b", 16, f, "synth", dur, "sine", f"{freqs[0]:.3f}",
            "triangle", f"{freqs[0]:.3f}", "remix", "1v0.6,2v0.3", "fade", "q", 0.01, dur, rel)
    elif kind == "kick":
        sox("-r", SR, "-c", 1, "-n", "-b", 16, f, "synth", 0.18, "sine", "90-40",
            "fade", "q", 0.002, 0.18, 0.12, "pad", 0, f"{max(0, n - samples(0.18))}s")
    elif kind == "hat":
        sox("-r", SR, "-c", 1, "-n", "-b", 16, f, "synth", 0.05, "whitenoise",
            "highpass", 7000, "fade", "q", 0.001, 0.05, 0.045, "vol", 0.5,
            "pad", 0, f"{max(0, n - samples(0.05))}s")
    return f

def sequence(events, total, tag):
    """events: [(start_s, end_s, kind, freqs)] sorted, non-overlapping -> mono wav of total s."""
    parts, pos = [], 0
    for start, end, kind, freqs in events:
        s, e = samples(start), samples(end)
        if s > pos: parts.append(rest(s - pos))
        parts.append(note(kind, freqs, e - s)); pos = e
    if samples(total) > pos: parts.append(rest(samples(total) - pos))
    out = os.path.join(TMP, f"voice-{tag}.wav")
    sox(*parts, out, "trim", 0, f"{samples(total)}s")
    for p in parts: os.remove(p)
    return out

def speak(text, slot, voice):
    """espeak-ng reads text, sped up if needed to fit in 90 % of slot seconds."""
    raw = tmp("v")
    speed = 150
    while True:
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", "55", "-w", raw, text],
                       check=True)
        secs = float(subprocess.run(["soxi", "-D", raw], capture_output=True, text=True,
                                    check=True).stdout)
        if secs <= slot * 0.9 or speed >= 260: break
        speed += 15
    f = tmp("w")
    sox(raw, "-r", SR, "-c", 1, "-b", 16, f, "highpass", 120, "gain", "-n", -3)
    return f

def song(no, title, key_chords, bpm, bars, lyrics, seed, voice, drums, slug):
    beat = 60.0 / bpm; bar = 4 * beat
    total = bars * bar + 1.5           # a 1.5 s tail for the reverb
    rng = random.Random(seed)
    chords = [[midi(n) for n in key_chords[i % len(key_chords)].split()] for i in range(bars)]
    pad, bass, mel, kick, hat = [], [], [], [], []
    rhythms = [[1, 0.5, 0.5, 1, 1], [1.5, 0.5, 2], [0.5, 0.5, 0.5, 0.5, 2], [2, 1, 1], [1, 1, 1, 1]]
    prev = chords[0][0] + 24
    for b, ch in enumerate(chords):
        t0 = b * bar
        pad.append((t0, t0 + bar, "pad", [hz(m) for m in ch[:3]]))
        root = ch[0] - 12 if ch[0] >= 48 else ch[0]
        bass.append((t0, t0 + 2 * beat, "bass", [hz(root - 12)]))
        bass.append((t0 + 2 * beat, t0 + 4 * beat, "bass", [hz(root - 12 + (7 if b % 2 else 12))]))
        if drums:
            for k in (0, 2):
                kick.append((t0 + k * beat, t0 + (k + 1) * beat, "kick", []))
            for h in range(8):
                hat.append((t0 + h * beat / 2, t0 + (h + 1) * beat / 2, "hat", []))
        # melody: chord tones two octaves up, preferring small steps; last bar holds the root
        tones = sorted({m + 12 * o for m in ch[:3] for o in (1, 2, 3) if 64 <= m + 12 * o <= 84})
        pattern = [4] if b == bars - 1 else rhythms[rng.randrange(len(rhythms))]
        t = t0
        for length in pattern:
            if b == bars - 1:
                m = min(tones, key=lambda x: (abs(x - prev), x % 12 != ch[0] % 12))
            else:
                near = sorted(tones, key=lambda x: abs(x - prev))[:3]
                m = near[rng.randrange(len(near))]
            if rng.random() < 0.12 and b != bars - 1:
                t += length * beat; continue          # a breath
            mel.append((t, t + length * beat, "pluck", [hz(m)])); prev = m; t += length * beat
    voices = [(sequence(pad, total, "pad"), 0.55, 0.45, 0.9),
              (sequence(bass, total, "bass"), 0.5, 0.5, 0.9),
              (sequence(mel, total, "mel"), 0.35, 0.6, 0.8)]
    if drums:
        voices += [(sequence(kick, total, "kick"), 0.5, 0.5, 0.6),
                   (sequence(hat, total, "hat"), 0.6, 0.35, 0.35)]
    # speech, each line placed at its timestamp (bar numbers -> seconds)
    lrc_lines, speech = [], []
    for i, (at_bar, text) in enumerate(lyrics):
        at = at_bar * bar
        lrc_lines.append((at, text))
        if text:
            nxt = lyrics[i + 1][0] * bar if i + 1 < len(lyrics) else bars * bar
            w = speak(text.replace("à", "a"), nxt - at, voice)
            placed = tmp("p"); sox(w, placed, "pad", f"{samples(at)}s", 0)
            speech.append(placed)
    if speech:
        vt = os.path.join(TMP, "voice-speech.wav")
        sox("-m", *speech, vt, "trim", 0, f"{samples(total)}s") if len(speech) > 1 else \
            sox(speech[0], vt, "pad", 0, f"{samples(total)}s", "trim", 0, f"{samples(total)}s")
        voices.append((vt, 0.5, 0.5, 1.4))
    stereo = []
    for path, left, right, gain in voices:
        s = path[:-4] + "-st.wav"
        sox(path, "-c", 2, s, "remix", f"1v{left * gain:.3f}", f"1v{right * gain:.3f}")
        stereo.append(s)
    mixed = os.path.join(TMP, "mix.wav"); final = os.path.join(TMP, "final.wav")
    mix_args = []
    for s in stereo: mix_args += ["-v", 1, s]
    sox("-m", *mix_args, "-b", 16, mixed, "reverb", 35, 50, 60, "gain", "-h")
    sox(mixed, "-b", 16, final, "trim", 0, f"{samples(total)}s", "fade", "t", 0, total, 1.5,
        "gain", "-n", -1)
    mp3 = os.path.join(OUT, f"{slug}.mp3"); untagged = os.path.join(TMP, "untagged.mp3")
    subprocess.run(["lame", "--quiet", "-b", "96", "--cbr", "--resample", "44.1", "-q", "2",
                    final, untagged], check=True)
    subprocess.run(["python3", ID3, "v24", untagged, mp3, title, ARTIST, ALBUM, f"{no}/3"],
                   check=True)
    with open(os.path.join(OUT, f"{slug}.lrc"), "w", encoding="utf-8") as f:
        f.write(f"[ti:{title}]\n[ar:{ARTIST}]\n[al:{ALBUM}]\n[length:{int(total) // 60:02d}:{int(total) % 60:02d}]\n")
        for at, text in lrc_lines:
            cs = round(at * 100)
            f.write(f"[{cs // 6000:02d}:{cs // 100 % 60:02d}.{cs % 100:02d}]{text}\n")
    for p in os.listdir(TMP): os.remove(os.path.join(TMP, p))
    print(f"{slug}.mp3: {title!r}, {total:.2f} s, {os.path.getsize(mp3)} bytes")

# (bar, text): bar numbers are converted to seconds with the song's tempo; "" = instrumental
song(1, "Morning Light", ["C4 E4 G4", "G3 B3 D4", "A3 C4 E4", "F3 A3 C4"], 96, 8, [
        (1, "Open the window, let the morning in"),
        (3, "Golden light is pouring on the kitchen floor and the day begins again"),
        (5, ""),
        (6, "Morning light, stay a little longer"),
        (8, ""),
    ], seed=1, voice="en-us+f3", drums=True, slug="01 Morning Light")
song(2, "Café au Lait", ["F3 A3 C4 E4", "D3 F3 A3 C4", "G3 Bb3 D4 F4", "C3 E3 G3 Bb3"], 84, 8, [
        (1, "Sugar and a little foam"),
        (3, "Steam curls up from the cup while the city slowly wakes around us"),
        (5, ""),
        (6, "Café au lait, à bientôt"),
        (8, ""),
    ], seed=2, voice="en-us+m3", drums=False, slug="02 Cafe au Lait")
song(3, "Night Drive", ["A3 C4 E4", "F3 A3 C4", "C4 E4 G4", "G3 B3 D4"], 120, 10, [
        (1, "Headlights on the empty road"),
        (3, "The radio is humming songs we used to know by heart a long time ago"),
        (6, ""),
        (7, "Drive on, drive on into the night"),
        (10, ""),
    ], seed=3, voice="en-us+f2", drums=True, slug="03 Night Drive")
shutil.rmtree(TMP)
PY
