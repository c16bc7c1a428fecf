// The scale section's libraries: 2,000, 20,000 and 100,000 tiny real files of every supported
// format with a realistic tag spread, made once into <work>/scale-v1/N and reused. The files
// are made by a Python script (below) with mutagen: one template per format is encoded once,
// then each track is a copy with its own tags, so 100,000 files take minutes, not hours.
import Foundation
import Glibc
import JukeboxTestSupport

struct ScaleLibrary {
    static let version = 1
    /// The script needs python3-mutagen, which Debian installs for its own python3.
    static let python = "/usr/bin/python3"
    let work: String
    let files: Int
    var cache: String { "\(work)/scale-v\(Self.version)" }
    var root: String { "\(cache)/\(files)" }
    var music: String { "\(root)/lib" }
    /// Written last, from the script's output: its presence marks a complete library.
    var summaryPath: String { "\(root)/summary.tsv" }
    var script: String { "\(cache)/scale-library.py" }

    /// Makes the library unless a complete one is there; returns its summary (files, artists,
    /// albums, ..., `find_artist`, `seconds` it took to make).
    func ensure(log: (String) -> Void) throws -> [String: String] {
        if let text = readText(summaryPath) {
            log("scale library of \(files) files present in \(music), reused (rm -r \(root) to rebuild)")
            return Self.parseSummary(text)
        }
        if let owner = readText("\(root)/generating").flatMap({ Int32($0) }), kill(owner, 0) == 0 {
            log("process \(owner) is making \(music) (another run); waiting for it to end")
            while kill(owner, 0) == 0 { Clock.sleep(5) }
            if let text = readText(summaryPath) { return Self.parseSummary(text) }
        }
        for tool in ["sox", "lame", "flac", "oggenc", "opusenc", "ffmpeg", Self.python] where which(tool) == nil {
            throw BenchError(
                "missing \(tool): apt-get install -y sox lame flac vorbis-tools opus-tools ffmpeg python3-mutagen")
        }
        log("making the scale library of \(files) files in \(music) ...")
        try mkdirs(root)
        try writeText(script, Self.scriptText)
        let (e, out) = try capture(
            [Self.python, script, "generate", root, "\(files)"], stderr: .file("\(root)/generate.log"), timeout: 7200)
        guard e.exited && e.exitCode == 0 else {
            throw BenchError("scale-library.py failed (\(e.text)); see \(root)/generate.log")
        }
        try writeText(summaryPath, out)
        return Self.parseSummary(out)
    }

    /// Retitles every 100th file (1 %), each time with another `suffix`.
    func changeOnePercent(suffix: String) throws {
        try writeText(script, Self.scriptText)
        let (e, _) = try capture(
            [Self.python, script, "change", root, suffix], stderr: .file("\(root)/change.log"), timeout: 1800)
        guard e.exited && e.exitCode == 0 else { throw BenchError("scale-library.py change failed (\(e.text))") }
    }

    /// "key<TAB>value" lines.
    static func parseSummary(_ text: String) -> [String: String] {
        var kv = [String: String]()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { kv[String(parts[0])] = String(parts[1]) }
        }
        return kv
    }

    static let scriptText = #"""
        # jukebox-bench's scale libraries (docs/BENCHMARK.md, "scale"): tiny real files of every
        # supported format with a realistic tag spread. One short template per format is encoded
        # once; each track is a copy of it with its own tags (mutagen), much faster than an encoder
        # run per file.
        #   scale-library.py generate DIR N    makes DIR/lib (N files), DIR/manifest.tsv, prints a summary
        #   scale-library.py change DIR SUFFIX  retitles every 100th file of DIR's manifest (1 %)
        # The spread is a function of N alone (random.Random(N)), so a library is the same every time.
        import os, random, shutil, subprocess, sys, time
        from multiprocessing import Pool
        from mutagen.id3 import ID3, TIT2, TPE1, TPE2, TALB, TRCK, TPOS, TCON, TDRC, TCMP
        from mutagen.flac import FLAC
        from mutagen.oggvorbis import OggVorbis
        from mutagen.oggopus import OggOpus
        from mutagen.mp4 import MP4

        FORMATS = [("mp3", 40), ("flac", 25), ("m4a", 15), ("ogg", 10), ("opus", 10)]
        GENRES = ["Rock", "Pop", "Jazz", "Classical", "Electronic", "Hip-Hop", "Folk", "Blues", "Soul", "Metal",
                  "Country", "Reggae", "Punk", "Indie", "Ambient", "Soundtrack", "Latin", "Chanson", "J-Pop",
                  "K-Pop", "World", "Funk", "Disco", "Children's Music", "Audiobook"]
        FIRST = ["Anna", "Björn", "Chloé", "Dmitri", "Elif", "François", "Greta", "Héctor", "Inés", "Jürgen",
                 "Kasia", "Léa", "Miloš", "Núria", "Oskar", "Paweł", "Renée", "Søren", "Tomás", "Zoë", "Ådne",
                 "João", "Ümit", "Mary", "John", "Nina", "Paul", "Sara", "Leo", "Ida"]
        LAST = ["Sørensen", "Müller", "García", "Dvořák", "Nowak", "Lefèvre", "Öztürk", "Silva", "Kowalski",
                "Brontë", "Ångström", "Martínez", "Smith", "Jones", "Rossi", "Novák", "Weiß", "Çelik", "Ní Bhriain",
                "O'Brien", "Andersson", "Dubois", "Kovač", "Jensen", "Lindqvist"]
        ADJ = ["Blue", "Silent", "Electric", "Golden", "Broken", "Velvet", "Crystal", "Wild", "Hollow", "Neon",
               "Paper", "Iron", "Lonely", "Midnight", "Crimson", "Gentle", "Frozen", "Burning", "Secret", "Lucky"]
        NOUN = ["Rivers", "Foxes", "Machines", "Hearts", "Lanterns", "Wolves", "Tides", "Mirrors", "Engines",
                "Gardens", "Boxes", "Sparrows", "Roads", "Waves", "Signals", "Stones", "Ghosts", "Pixels", "Owls"]
        MIDDLE = [f" {c}." for c in "ABCDEFGHIJKLMNOPRSTVW"]
        BAND = [" Trio", " Quartet", " Orchestra", " Collective", " & Friends", " Band"]
        CJK_FAMILY = ["山田", "佐藤", "鈴木", "高橋", "王", "李", "张", "陈", "김", "박", "이", "최"]
        CJK_GIVEN = ["花子", "太郎", "美咲", "翔", "伟", "芳", "娜", "静", "민준", "서연", "지우", "하은"]
        CJK_WORDS = ["東京", "夜空", "桜", "星の歌", "海辺", "風", "夢", "春夏秋冬", "사랑", "바다", "하늘", "月光", "雨"]
        WORDS = ["Love", "Night", "Mix", "Box", "Dance", "Rain", "Fire", "Light", "Road", "Home", "Dream",
                 "Time", "Heart", "Sky", "Sun", "Moon", "Song", "Blues", "Waltz", "Boxer", "Exit", "Sixteen",
                 "Été", "Mañana", "Fjörd", "Über", "Noël", "Café", "Señor", "Ça va"]


        def weighted(rng, pairs):
            return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


        def artist_name(rng):
            kind = rng.random()
            if kind < 0.15:
                return rng.choice(CJK_FAMILY) + rng.choice(CJK_GIVEN) + rng.choice(["", "", *CJK_GIVEN])
            if kind < 0.35:
                return "The " + rng.choice(ADJ) + " " + rng.choice(NOUN) + rng.choice(["", "", *BAND])
            return rng.choice(FIRST) + rng.choice(["", *MIDDLE]) + " " + rng.choice(LAST)


        def title(rng, cjk):
            if cjk and rng.random() < 0.7:
                return "".join(rng.sample(CJK_WORDS, rng.randint(1, 3)))
            return " ".join(rng.sample(WORDS, rng.randint(1, 4)))


        def spread(n):
            """The library's tracks: (relative path, format, tags), n of them."""
            rng = random.Random(n)
            names = set()
            for _ in range(100 * n):  # about 25,000 distinct names can be made; far fewer are asked for
                if len(names) >= max(40, n // 30):
                    break
                names.add(artist_name(rng))
            artists = sorted(names)
            genre_weights = [(g, 1.0 / (i + 1)) for i, g in enumerate(GENRES)]
            tracks, album_no = [], 0
            while len(tracks) < n:
                album_no += 1
                kind = rng.random()
                compilation, discs = kind < 0.10, (rng.randint(2, 3) if 0.10 <= kind < 0.22 else 1)
                artist = rng.choice(artists)
                cjk = artist[0] >= "\u3000"
                album = title(rng, cjk) + f" {album_no}"
                album_artist = "Various Artists" if compilation else artist
                year = rng.randint(1956, 2024)
                date = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" if rng.random() < 0.4 else str(year)
                genre = weighted(rng, genre_weights)
                fmt = weighted(rng, FORMATS)
                folder = f"Compilations/{album}" if compilation else f"{album_artist}/{year} - {album}"
                tag_album_artist = compilation or discs > 1 or rng.random() < 0.6
                for disc in range(1, discs + 1):
                    count = rng.randint(8, 16)
                    for t in range(1, count + 1):
                        track_artist = rng.choice(artists) if compilation else artist
                        if rng.random() < 0.05:
                            track_artist += " feat. " + rng.choice(artists)
                        name = title(rng, cjk)
                        tags = {"TITLE": name, "ARTIST": track_artist, "ALBUM": album, "TRACKNUMBER": f"{t}/{count}",
                                "GENRE": genre if not compilation else weighted(rng, genre_weights), "DATE": date}
                        if tag_album_artist:
                            tags["ALBUMARTIST"] = album_artist
                        if discs > 1:
                            tags["DISCNUMBER"] = f"{disc}/{discs}"
                        if compilation:
                            tags["COMPILATION"] = "1"
                        sub = f"CD{disc}/" if discs > 1 else ""
                        safe = name.replace("/", "-")
                        tracks.append((f"{folder}/{sub}{t:02d} - {safe}.{fmt}", fmt, tags))
            return tracks[:n]


        ID3_FRAMES = {"TITLE": TIT2, "ARTIST": TPE1, "ALBUMARTIST": TPE2, "ALBUM": TALB, "TRACKNUMBER": TRCK,
                      "DISCNUMBER": TPOS, "GENRE": TCON, "DATE": TDRC, "COMPILATION": TCMP}
        MP4_KEYS = {"TITLE": "\xa9nam", "ARTIST": "\xa9ART", "ALBUMARTIST": "aART", "ALBUM": "\xa9alb",
                    "GENRE": "\xa9gen", "DATE": "\xa9day"}
        XIPH = {"flac": FLAC, "ogg": OggVorbis, "opus": OggOpus}


        def write_tags(path, fmt, tags):
            if fmt == "mp3":
                frames = ID3()
                for k, v in tags.items():
                    frames.add(ID3_FRAMES[k](encoding=3, text=[v]))
                frames.save(path, v2_version=3)
            elif fmt == "m4a":
                f = MP4(path)
                for k, v in tags.items():
                    if k in ("TRACKNUMBER", "DISCNUMBER"):
                        num, _, of = v.partition("/")
                        f["trkn" if k == "TRACKNUMBER" else "disk"] = [(int(num), int(of or 0))]
                    elif k == "COMPILATION":
                        f["cpil"] = True
                    else:
                        f[MP4_KEYS[k]] = [v]
                f.save()
            else:
                f = XIPH[fmt](path)
                for k, v in tags.items():
                    f[k] = [v]
                f.save()


        def make_templates(folder):
            """One 0.5 s stereo tone per format (real, decodable files), encoded once."""
            os.makedirs(folder, exist_ok=True)
            wav = os.path.join(folder, "tone.wav")
            def run(*argv):
                subprocess.run(argv, check=True)
            run("sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "0.5", "sine", "440", "gain", "-12")
            t = lambda ext: os.path.join(folder, "template." + ext)
            run("lame", "--quiet", "-b", "64", wav, t("mp3"))
            run("flac", "--silent", "-f", "-o", t("flac"), wav)
            run("oggenc", "-Q", "-q", "0", "-o", t("ogg"), wav)
            run("opusenc", "--quiet", "--bitrate", "32", wav, t("opus"))
            run("ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "64k", t("m4a"))


        def make_files(job):
            templates, root, rows = job
            made = set()
            for rel, fmt, tags in rows:
                path = os.path.join(root, rel)
                folder = os.path.dirname(path)
                if folder not in made:
                    os.makedirs(folder, exist_ok=True)
                    made.add(folder)
                shutil.copyfile(os.path.join(templates, "template." + fmt), path)
                write_tags(path, fmt, tags)


        def generate(folder, n):
            t0 = time.monotonic()
            marker = os.path.join(folder, "generating")  # tells another run to wait for this one
            with open(marker, "w") as m:
                m.write(str(os.getpid()))
            tracks = spread(n)
            templates, root = os.path.join(folder, "templates"), os.path.join(folder, "lib")
            shutil.rmtree(root, ignore_errors=True)
            make_templates(templates)
            with open(os.path.join(folder, "manifest.tsv"), "w", encoding="utf-8") as m:
                for rel, fmt, tags in tracks:
                    m.write("\t".join([rel, fmt] + [f"{k}={v}" for k, v in tags.items()]) + "\n")
            chunks = [tracks[i:i + 500] for i in range(0, len(tracks), 500)]
            with Pool(2) as pool:
                pool.map(make_files, [(templates, root, c) for c in chunks])
            seconds = time.monotonic() - t0
            artists = {t["ARTIST"] for _, _, t in tracks}
            albums = {(t.get("ALBUMARTIST", t["ARTIST"]), t["ALBUM"]) for _, _, t in tracks}
            formats = {}
            for _, fmt, _ in tracks:
                formats[fmt] = formats.get(fmt, 0) + 1
            # `find artist`: the artist of the library's middle track (a name with its own albums)
            probe = tracks[n // 2][2]["ARTIST"]
            summary = {
                "files": n, "artists": len(artists), "albums": len(albums),
                "album_artists": len({t["ALBUMARTIST"] for _, _, t in tracks if "ALBUMARTIST" in t}),
                "compilation_tracks": sum(1 for _, _, t in tracks if "COMPILATION" in t),
                "multi_disc_tracks": sum(1 for _, _, t in tracks if "DISCNUMBER" in t),
                "cjk_artist_tracks": sum(1 for _, _, t in tracks if t["ARTIST"][0] >= "\u3000"),
                "genres": len({t["GENRE"] for _, _, t in tracks}),
                "formats": ",".join(f"{k}:{v}" for k, v in sorted(formats.items())),
                "find_artist": probe, "seconds": f"{seconds:.1f}",
            }
            for k, v in summary.items():
                print(f"{k}\t{v}")
            os.remove(marker)


        def change(folder, suffix):
            root = os.path.join(folder, "lib")
            with open(os.path.join(folder, "manifest.tsv"), encoding="utf-8") as m:
                for i, line in enumerate(m):
                    if i % 100:
                        continue
                    fields = line.rstrip("\n").split("\t")
                    tags = dict(f.split("=", 1) for f in fields[2:])
                    write_tags(os.path.join(root, fields[0]), fields[1], {"TITLE": tags["TITLE"] + suffix})


        if __name__ == "__main__":
            if sys.argv[1] == "generate":
                generate(sys.argv[2], int(sys.argv[3]))
            else:
                change(sys.argv[2], sys.argv[3])
        """#
}
