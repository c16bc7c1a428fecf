import Foundation
import Glibc
import JukeboxTestSupport
import SQLite
import Testing

/// jukeboxd with AAC and ALAC in MP4: scanned with their tags, played gaplessly through ALSA's
/// `file` PCM as ffmpeg decodes them, and FFmpeg loaded only when an MP4 file is met.
@Suite(.serialized) struct MP4DaemonTests {
    /// The folders of the FFmpeg libraries the process maps: Debian's libavutil, libavcodec,
    /// libavformat, or the minimal build's libjukebox-ffmpeg.so.
    static func ffmpegFolders(_ pid: pid_t) -> Set<String> {
        let maps = (readText("/proc/\(pid)/maps") ?? "").split(separator: "\n")
        return Set(
            maps.compactMap { line in
                guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last,
                    path.hasPrefix("/"), path.contains("/libav") || path.hasSuffix("/libjukebox-ffmpeg.so")
                else { return nil }
                return String(path[..<path.lastIndex(of: "/")!])
            })
    }

    /// The minimal FFmpeg build's folder (Board/build-ffmpeg.sh, which `./dev test` runs), as
    /// /proc's maps name it (links resolved).
    static func minimalFFmpegFolder() throws -> String {
        let resolved = try #require(
            realpath("\(Fixtures.repoRoot)/.build/ffmpeg-minimal/lib", nil),
            "no minimal FFmpeg build: run Board/build-ffmpeg.sh")
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Two parts of one continuous signal, AAC (.m4a) then ALAC (.m4b), in order: the device
    /// gets ffmpeg's samples of each at its exact length (AAC's padding cut), with no gap.
    @Test func playsMP4AsFFmpegDecodesIt() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-mp4")
        defer { sources.remove() }
        let media = EncodedMedia(directory: sources.path)
        let parts = [
            (name: "01 Night.m4a", wav: try media.wav("a.wav", seconds: 2), codec: ["-c:a", "aac", "-b:a", "128k"]),
            (name: "02 Day.m4b", wav: try media.wav("b.wav", seconds: 1.5, from: 2), codec: ["-c:a", "alac"]),
        ]
        var files: [String] = []
        var reference: [Int16] = []
        for (part, frames) in zip(parts, [88_200, 66_150]) {
            let path = media.file(part.name)
            try EncodedMedia.tool(
                [
                    "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", part.wav, "-metadata",
                    "title=夜に駆ける \(part.name.prefix(2))",
                    "-metadata", "artist=Zoë",
                ] + part.codec + [path])
            let raw = try EncodedMedia.tool(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-"])
            reference += raw.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self).prefix(frames * 2)) }
            files.append(path)
        }

        let harness = try DaemonHarness(tracks: files, mode: "in-order")
        let out = harness.directory.file("out.raw")
        let process = try harness.start(extraArguments: ["--audio-device", "file:'\(out)',raw"])
        #expect(process.waitForLine(matching: "playing \"夜に駆ける 01\"", on: .stderr) != nil, "\(harness.log)")
        // The minimal build (AAC, ALAC, MP4: 1 MB resident), not Debian's with its 126 libraries.
        #expect(try Self.ffmpegFolders(process.pid) == [Self.minimalFFmpegFolder()])
        #expect(!harness.log.contains("no minimal FFmpeg build"), "\(harness.log)")
        #expect(process.waitForLine(matching: "playing \"夜に駆ける 02\"", on: .stderr) != nil, "\(harness.log)")
        #expect(harness.waitForStatus(timeout: .seconds(10)) { $0.state == "stop" } != nil, "\(harness.log)")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)

        let got = try Data(contentsOf: URL(fileURLWithPath: out)).withUnsafeBytes {
            Array($0.bindMemory(to: Int16.self))
        }
        #expect(got.count == reference.count)
        #expect(
            got == reference,
            "first difference at \((0..<min(got.count, reference.count)).first { got[$0] != reference[$0] } ?? -1)")

        let connection = try Connection(path: harness.database)
        #expect(try connection.strings("SELECT artist FROM tracks ORDER BY path") == ["Zoë", "Zoë"])
        #expect(try connection.strings("SELECT duration_ms FROM tracks ORDER BY path") == ["2000", "1500"])
    }

    /// A 3-hour M4B (465,000 packets of low-bitrate AAC) scans and plays within the peak memory
    /// of its 1-minute part: the shim reads the sample tables from the file a window at a time.
    /// Through the demuxer's index (24 bytes a packet, beside its copies of the tables) the
    /// peak was 11 MB higher.
    @Test func aLongAudiobookPlaysInTheMemoryOfAShortFile() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-m4b")
        defer { sources.remove() }
        let media = EncodedMedia(directory: sources.path)
        let ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
        let part = media.file("part.m4a"), list = media.file("parts.txt"), book = media.file("book.m4b")
        try EncodedMedia.tool(
            ffmpeg + ["-f", "lavfi", "-i", "sine=frequency=220:sample_rate=44100:duration=60"]
                + ["-c:a", "aac", "-b:a", "24k", part])
        try String(repeating: "file '\(part)'\n", count: 180).write(toFile: list, atomically: true, encoding: .utf8)
        try EncodedMedia.tool(ffmpeg + ["-f", "concat", "-safe", "0", "-i", list, "-c", "copy", "-f", "ipod", book])

        func peakKiB(playing file: String) throws -> Int {
            let harness = try DaemonHarness(tracks: [file], mode: "repeat-one")
            let process = try harness.start()
            #expect(
                harness.waitForStatus(timeout: .seconds(20)) { $0.state == "play" && $0.elapsed >= 1 } != nil,
                "\(harness.log)")
            let peak = ProcessStats.read(process.pid)?.vmHWMKiB ?? 0
            process.kill(SIGTERM)
            #expect(process.waitForExit(timeout: .seconds(3)) == 0)
            return peak
        }
        let long = try peakKiB(playing: book)
        let short = try peakKiB(playing: part)
        print("jukeboxd peak RSS: \(long) KiB playing a 3-hour M4B, \(short) KiB playing its 1-minute part")
        #expect(long > 0 && short > 0)
        #expect(long - short < 2048, "a 3-hour M4B peaks \(long - short) KiB above a 1-minute AAC")
    }

    /// Files named .m4a or .mp4 that hold no AAC or ALAC are listed as unplayable with
    /// FFmpeg's reason, one line each, and the good one plays.
    @Test func badMP4FilesAreListedWithFFmpegsReason() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-mp4")
        defer { sources.remove() }
        let media = EncodedMedia(directory: sources.path)
        let wav = try media.wav("a.wav", seconds: 1)
        func ffmpeg(_ arguments: [String], _ name: String) throws -> String {
            try EncodedMedia.tool(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments + [media.file(name)])
            return media.file(name)
        }
        let junk = media.file("Junk.m4a")
        try Data((0..<50_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }).write(
            to: URL(fileURLWithPath: junk))
        let files = [
            try ffmpeg(["-i", wav, "-c:a", "alac"], "Good.m4a"), junk,
            try ffmpeg(["-f", "lavfi", "-i", "testsrc=duration=1:size=64x48:rate=10", "-c:v", "mpeg4"], "Video.mp4"),
            try ffmpeg(["-i", wav, "-c:a", "eac3"], "Surround.mp4"),
        ]
        let harness = try DaemonHarness(tracks: files, mode: "in-order")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "playing \"Good\"", on: .stderr) != nil, "\(harness.log)")
        let connection = try Connection(path: harness.database)
        let problems = "SELECT path || ': ' || problem FROM tracks WHERE problem IS NOT NULL ORDER BY path"
        #expect(waitUntil { (try? connection.strings(problems).count) == 3 }, "\(harness.log)")
        let listed = try connection.strings(problems)
        print(listed.joined(separator: "\n"))
        #expect(listed.count == 3)
        for (path, reason) in zip(
            ["Junk.m4a", "Surround.mp4", "Video.mp4"],
            ["moov atom not found", "the audio is eac3, not AAC or ALAC", "no audio stream"])
        {
            #expect(listed.contains { $0.hasPrefix(path + ": ") && $0.contains(reason) }, "\(path): \(listed)")
        }
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
    }

    /// Stopped in the middle of an AAC track and started again, it resumes where it was (a
    /// sample-exact seek through FFmpeg).
    @Test func resumesAnMP4WhereItWasLeft() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-mp4")
        defer { sources.remove() }
        let media = EncodedMedia(directory: sources.path)
        let path = media.file("Long.m4a")
        try EncodedMedia.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", try media.wav("a.wav", seconds: 20), "-c:a", "aac", path,
        ])
        let harness = try DaemonHarness(tracks: [path], mode: "repeat-one")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "playing \"Long\"", on: .stderr) != nil, "\(harness.log)")
        harness.send("seek 12")
        #expect(harness.waitForStatus { $0.state == "play" && $0.elapsed >= 12.5 } != nil, "\(harness.log)")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
        let left = try #require(harness.checkpoint()).positionMs

        let again = try harness.start()
        #expect(again.waitForLine(matching: "playing \"Long\"", on: .stderr) != nil, "\(harness.log)")
        let back = try #require(harness.status())
        #expect(back.state == "play")
        #expect(abs(back.elapsed * 1000 - Double(left)) < 700, "left at \(left) ms, back at \(back.elapsed) s")
        again.kill(SIGTERM)
        #expect(again.waitForExit(timeout: .seconds(3)) == 0)
    }

    /// A library of MP3 alone never loads FFmpeg (Debian's 130 libraries are 24 MB resident,
    /// the minimal build 1 MB).
    @Test func anMP3AloneLoadsNoFFmpeg() throws {
        let harness = try DaemonHarness(tracks: [Fixtures.media("mp3/cbr128.mp3")], mode: "repeat-one")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        #expect(harness.waitForStatus { $0.state == "play" && $0.elapsed >= 0.3 } != nil, "\(harness.log)")
        #expect(Self.ffmpegFolders(process.pid).isEmpty)
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
    }
}
