// Section 1: test material, generated once into <work>/music and reused (deterministic:
// `sox -R` fixed seeds, LAME, and ID3v2.3 tags written here).
import Foundation
import Glibc
import JukeboxTestSupport

struct Material {
    static let version = 4
    let work: String
    var music: String { "\(work)/music" }
    var src: String { "\(work)/src" }
    var cbr320: String { "\(music)/single-cbr320/music_cbr320.mp3" }
    var v2: String { "\(music)/single-v2/music_v2.mp3" }
    var library: String { "\(music)/library" }
    /// The 180 s signal as FLAC, Ogg Vorbis (oggenc -q 5) and Opus (128 kbit/s, from 48 kHz).
    func single(_ format: XiphFormat) -> String { "\(music)/single-\(format.ext)/music.\(format.ext)" }
    /// 2,000 1-s files, a quarter each MP3, FLAC, Ogg Vorbis and Opus, tagged like `library`.
    var mixedLibrary: String { "\(music)/mixed-library" }
    var short: String { "\(music)/short" }
    static let libraryFiles = 2000
    static let shortTracks = 20
    static let shortSeconds = 5
    var stamp: String { "\(work)/.material-v\(Self.version)" }

    var present: Bool {
        fileExists(stamp) && fileExists(cbr320) && fileExists(v2)
            && XiphFormat.allCases.allSatisfy { fileExists(single($0)) }
    }

    /// Generates whatever is missing; returns a one-line description.
    func ensure(log: (String) -> Void) throws -> String {
        if present {
            log("material v\(Self.version) present in \(music), reused (rm \(stamp) to rebuild)")
            return describe()
        }
        for t in ["sox", "lame", "flac", "oggenc", "opusenc"] where which(t) == nil {
            throw BenchError(
                "missing tool \(t): apt-get install -y mpg123 lame sox flac vorbis-tools opus-tools mpd mpc strace")
        }
        let t0 = Clock.seconds()
        for f in try fm.contentsOfDirectory(atPath: work) where f.hasPrefix(".material-v") {
            removeItem("\(work)/\(f)")
        }
        removeItem(music)
        try mkdirs(src)
        try mkdirs((cbr320 as NSString).deletingLastPathComponent)
        try mkdirs((v2 as NSString).deletingLastPathComponent)
        try mkdirs(library)
        try mkdirs(short)

        // (a) 180 s "music-like" signal, same sox command as perf-baseline.sh, CBR 320 and V2
        log("generating the 180 s signal (sox) ...")
        try check([
            "sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", "\(src)/music.wav",
            "synth", "180", "sawtooth", "110-220", "sawtooth", "165-330",
            "synth", "180", "sawtooth", "mix", "220", "sawtooth", "mix", "277",
            "synth", "180", "triangle", "mix", "330", "triangle", "mix", "415",
            "synth", "180", "pinknoise", "mix",
            "tremolo", "1.3", "40", "gain", "-n", "-1",
        ])
        // short sources: 10 one-second wavs for the library, one 5-second wav for the short tracks
        var jobs: [[String]] = []
        for k in 0..<10 {
            jobs.append([
                "sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", "\(src)/short\(k).wav",
                "synth", "1", "sawtooth", "\(110 + 20 * k)", "sawtooth", "\(165 + 30 * k)",
                "synth", "1", "pinknoise", "mix", "gain", "-n", "-3",
            ])
        }
        jobs.append([
            "sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", "\(src)/five.wav",
            "synth", "\(Self.shortSeconds)", "sawtooth", "220-440", "sawtooth", "330-165",
            "synth", "\(Self.shortSeconds)", "pinknoise", "mix", "tremolo", "2", "30", "gain", "-n", "-3",
        ])
        try runParallel(jobs)
        log("encoding with LAME (CBR 320, V2, 11 short sources) ...")
        jobs = [
            ["lame", "--quiet", "-b", "320", "--cbr", "\(src)/music.wav", cbr320],
            ["lame", "--quiet", "-V", "2", "\(src)/music.wav", v2],
        ]
        for k in 0..<10 {
            jobs.append(["lame", "--quiet", "-b", "128", "\(src)/short\(k).wav", "\(src)/short\(k).mp3"])
        }
        jobs.append(["lame", "--quiet", "-b", "128", "\(src)/five.wav", "\(src)/five.mp3"])
        try runParallel(jobs)
        log("encoding the 180 s signal as FLAC, Ogg Vorbis and Opus ...")
        for format in XiphFormat.allCases { try mkdirs((single(format) as NSString).deletingLastPathComponent) }
        try check(["sox", "\(src)/music.wav", "-r", "48000", "\(src)/music48.wav"])
        try runParallel([
            ["flac", "--silent", "-f", "-o", single(.flac), "\(src)/music.wav"],
            ["oggenc", "-Q", "-q", "5", "-o", single(.vorbis), "\(src)/music.wav"],
            ["opusenc", "--quiet", "--bitrate", "128", "\(src)/music48.wav", single(.opus)],
        ])

        // (b) 2,000-file library: the audio is encoded once per source; the distinct ID3v2 tags
        // are written here (much faster than 2,000 lame runs). Layout as perf-baseline.sh.
        let shortMp3 = try (0..<10).map { try Data(contentsOf: URL(fileURLWithPath: "\(src)/short\($0).mp3")) }
        let genres = ["Blues", "Classic Rock", "Country", "Dance", "Disco"]
        for i in 0..<Self.libraryFiles {
            let a = i / 40 + 1, al = (i / 10) % 4 + 1, t = i % 10 + 1
            let artist = String(format: "Artist %03d", a)
            let dir = "\(library)/\(artist)/" + String(format: "Album %02d", al)
            if t == 1 { try mkdirs(dir) }
            let tag = id3v2([
                ("TIT2", "Song \(i)"), ("TPE1", artist),
                ("TALB", String(format: "Album %02d of Artist %03d", al, a)),
                ("TYER", "\(1970 + a % 50)"), ("TRCK", "\(t)/10"), ("TCON", genres[i % 5]),
            ])
            let path = dir + "/" + String(format: "%02d - Song %04d.mp3", t, i)
            // LAME's --add-id3v2 with tags also appends an ID3v1.1 tag: do the same
            let v1 = id3v1(
                title: "Song \(i)", artist: artist, album: String(format: "Album %02d of Artist %03d", al, a),
                year: "\(1970 + a % 50)", track: t, genre: i % 5)
            guard fm.createFile(atPath: path, contents: tag + shortMp3[i % 10] + v1) else {
                throw BenchError("cannot write \(path)")
            }
        }
        // (b') the mixed library: the same layout and tags, every fifth file MP3 (as above),
        // the others FLAC, Ogg Vorbis and Opus with their tags as Vorbis comments, and AAC in
        // M4A with them as iTunes atoms (ffmpeg's mp4 muxer).
        log("encoding the mixed library (1,600 FLAC, Ogg Vorbis, Opus and M4A files) ...")
        jobs = []
        for i in 0..<Self.libraryFiles {
            let a = i / 40 + 1, al = (i / 10) % 4 + 1, t = i % 10 + 1
            let artist = String(format: "Artist %03d", a)
            let album = String(format: "Album %02d of Artist %03d", al, a)
            let dir = "\(mixedLibrary)/\(artist)/" + String(format: "Album %02d", al)
            if t == 1 { try mkdirs(dir) }
            let base = dir + "/" + String(format: "%02d - Song %04d", t, i)
            let comments = [
                "TITLE=Song \(i)", "ARTIST=\(artist)", "ALBUM=\(album)", "DATE=\(1970 + a % 50)", "TRACKNUMBER=\(t)/10",
                "GENRE=\(genres[i % 5])",
            ]
            let wav = "\(src)/short\(i % 10).wav"
            switch i % 5 {
            case 0:
                try fm.linkItem(
                    atPath: "\(library)/\(artist)/" + String(format: "Album %02d/%02d - Song %04d.mp3", al, t, i),
                    toPath: base + ".mp3")
            case 1:
                jobs.append(
                    ["flac", "--silent", "-f"] + comments.flatMap { ["-T", $0] } + ["-o", base + ".flac", wav])
            case 2: jobs.append(["oggenc", "-Q"] + comments.flatMap { ["-c", $0] } + ["-o", base + ".ogg", wav])
            case 3:
                let atoms = [
                    "title=Song \(i)", "artist=\(artist)", "album=\(album)", "date=\(1970 + a % 50)", "track=\(t)/10",
                    "genre=\(genres[i % 5])",
                ]
                jobs.append(
                    ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "128k"]
                        + atoms.flatMap { ["-metadata", $0] } + [base + ".m4a"])
            default:
                jobs.append(["opusenc", "--quiet"] + comments.flatMap { ["--comment", $0] } + [wav, base + ".opus"])
            }
        }
        try runParallel(jobs)

        // (c) short tracks for the disk-write test (track changes every 5 s)
        let five = try Data(contentsOf: URL(fileURLWithPath: "\(src)/five.mp3"))
        for n in 1...Self.shortTracks {
            let tag = id3v2([
                ("TIT2", String(format: "Short %02d", n)), ("TPE1", "Bench"),
                ("TALB", "Short tracks"), ("TRCK", "\(n)/\(Self.shortTracks)"),
            ])
            let path = "\(short)/" + String(format: "%02d - Short.mp3", n)
            guard fm.createFile(atPath: path, contents: tag + five) else { throw BenchError("cannot write \(path)") }
        }
        _ = fm.createFile(atPath: stamp, contents: nil)
        log(String(format: "material generated in %.1f s", Clock.seconds() - t0))
        return describe()
    }

    func describe() -> String {
        func size(_ p: String) -> Int { ((try? fm.attributesOfItem(atPath: p))?[.size] as? Int) ?? 0 }
        return "music_cbr320.mp3 \(size(cbr320)) B, music_v2.mp3 \(size(v2)) B (180 s each); "
            + "library: \(Self.libraryFiles) x 1 s 128 kbps in 200 album folders (and mixed: MP3, FLAC, Ogg, Opus, M4A); "
            + "music.flac/.ogg/.opus (180 s); "
            + "short: \(Self.shortTracks) x \(Self.shortSeconds) s"
    }

    private func check(_ argv: [String]) throws {
        let (e, _) = try runTimed(argv, stderr: .file("\(src)/tool-stderr.log"))
        if !(e.exited && e.exitCode == 0) {
            throw BenchError(
                "\(argv.prefix(3).joined(separator: " ")) ... failed (\(e.text)): \(readText("\(src)/tool-stderr.log") ?? "")"
            )
        }
    }

    /// Runs commands, two at a time (2-core box).
    private func runParallel(_ jobs: [[String]], width: Int = 2) throws {
        var running: [(Child, [String])] = []
        var queue = jobs[...]
        while !queue.isEmpty || !running.isEmpty {
            while running.count < width, let j = queue.popFirst() {
                running.append((try Child.spawn(j, stderr: .inherit), j))
            }
            let (c, j) = running.removeFirst()
            let e = c.wait()
            if let e, !(e.exited && e.exitCode == 0) {
                throw BenchError("\(j.prefix(4).joined(separator: " ")) ... failed (\(e.text))")
            }
        }
    }
}

/// A 128-byte ID3v1.1 tag (fields truncated / NUL-padded).
func id3v1(title: String, artist: String, album: String, year: String, track: Int, genre: Int) -> Data {
    func field(_ s: String, _ n: Int) -> [UInt8] {
        let b = Array(s.utf8.prefix(n))
        return b + [UInt8](repeating: 0, count: n - b.count)
    }
    let bytes =
        Array("TAG".utf8) + field(title, 30) + field(artist, 30) + field(album, 30) + field(year, 4)
        + field("", 28) + [0, UInt8(track), UInt8(genre)]
    return Data(bytes)
}

/// An ID3v2.3 tag with ISO-8859-1 text frames (ASCII here).
func id3v2(_ frames: [(String, String)]) -> Data {
    var body = [UInt8]()
    for (id, text) in frames {
        let content: [UInt8] = [0] + Array(text.utf8)
        body += Array(id.utf8)
        let n = UInt32(content.count)
        body += [UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff), 0, 0]
        body += content
    }
    body += [UInt8](repeating: 0, count: 64)  // a little padding, as taggers do
    let s = UInt32(body.count)
    let header: [UInt8] =
        Array("ID3".utf8) + [
            3, 0, 0,
            UInt8((s >> 21) & 0x7f), UInt8((s >> 14) & 0x7f), UInt8((s >> 7) & 0x7f), UInt8(s & 0x7f),
        ]
    return Data(header + body)
}
