import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// The daemon tells the pipeline from the library's `Format` whether the queue holds a source
/// wider than 16 bits: a 16-bit FLAC then a 24-bit one go out through one open of a device
/// that takes S16 and S32_LE (ALSA's `file` PCM takes both), wide from the first, bit for
/// bit; a 16-bit-only queue keeps S16.
@Suite(.serialized) struct MixedDepthDaemonTests {
    /// FLACs of a 440 Hz stereo sine at 44.1 kHz, `bits` deep, named `name`, `frames` long,
    /// from frame `start`.
    static func flac(_ name: String, bits: Int, start: Int, frames: Int, dir: TemporaryDirectory) throws -> String {
        let wav = dir.file("\(name).wav")
        let script = """
            import math, struct, sys, wave
            bits, start, frames, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
            scale = (1 << (bits - 1)) * 0.5
            w = wave.open(path, "wb"); w.setnchannels(2); w.setsampwidth(bits // 8); w.setframerate(44100)
            data = bytearray()
            for i in range(start, start + frames):
                v = int(round(scale * math.sin(2 * math.pi * 440 * i / 44100)))
                data += v.to_bytes(bits // 8, "little", signed=True) * 2
            w.writeframes(bytes(data)); w.close()
            """
        let made = try run(["python3", "-c", script, "\(bits)", "\(start)", "\(frames)", wav])
        #expect(made.status == 0, "\(made.stderrText)")
        let path = dir.file("\(name).flac")
        _ = try run(["/usr/bin/flac", "-s", "-o", path, wav])
        return path
    }

    /// `flac -d` of `path`, each sample in the top bits of 32.
    static func reference(_ path: String, bits: Int, dir: TemporaryDirectory) throws -> [Int32] {
        let raw = dir.file("reference.raw")
        _ = try run([
            "/usr/bin/flac", "-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", raw,
            path,
        ])
        return samples(Array(FileManager.default.contents(atPath: raw) ?? Data()), bytes: bits / 8)
    }

    /// Little-endian samples of `bytes` bytes each, in the top bits of 32.
    static func samples(_ data: [UInt8], bytes: Int) -> [Int32] {
        stride(from: 0, to: data.count - bytes + 1, by: bytes).map { at in
            (0..<bytes).reduce(Int32(0)) { value, k in value | Int32(data[at + k]) << (32 - 8 * (bytes - k)) }
        }
    }

    /// What the daemon plays of `tracks` (in their order) into ALSA's `file` PCM, raw.
    static func played(_ tracks: [String], dir: TemporaryDirectory) throws -> [UInt8] {
        let output = dir.file("out.raw")
        let harness = try DaemonHarness(
            tracks: tracks, onStart: "off", mode: "in-order", device: "file:'\(output)',raw", pacing: "device")
        let process = try harness.start()
        #expect(harness.waitForStatus { $0.playlistLength == tracks.count } != nil, "\(harness.log)")
        harness.send("play")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        #expect(harness.waitForStatus(timeout: .seconds(10)) { $0.state == "stop" } != nil, "\(harness.log)")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
        return Array(FileManager.default.contents(atPath: output) ?? Data())
    }

    /// A 16-bit FLAC then one `bits` deep: with a 24-bit one, one open in S32_LE, both parts
    /// widened bit for bit (before, the device was opened in S16 for the first and reopened
    /// in S32_LE at the join: a gap, the file then holding the second part only); with a
    /// 16-bit one, S16 as before.
    @Test(arguments: [(24, 4), (16, 2)])
    func a16BitFLACThenAnother(bits: Int, deviceBytes: Int) throws {
        let dir = try TemporaryDirectory(prefix: "jb-mixed-depth")
        defer { dir.remove() }
        let first = try Self.flac("1-first", bits: 16, start: 0, frames: 20_011, dir: dir)
        let second = try Self.flac("2-second", bits: bits, start: 20_011, frames: 21_337, dir: dir)
        let got = Self.samples(try Self.played([first, second], dir: dir), bytes: deviceBytes)
        let reference =
            try Self.reference(first, bits: 16, dir: dir) + Self.reference(second, bits: bits, dir: dir)
        try #require(got.count == reference.count, "\(got.count) samples, not \(reference.count)")
        let difference = got.indices.first { got[$0] != reference[$0] }
        #expect(difference == nil, "first difference at sample \(difference ?? -1)")
    }
}
