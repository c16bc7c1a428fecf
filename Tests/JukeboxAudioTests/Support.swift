import Foundation
import Glibc
import JukeboxTestSupport

/// Paths of the committed media fixtures (Tests/Fixtures/media).
enum Media {
    static let root: String = {
        let here = URL(fileURLWithPath: #filePath)
        return here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/media")
            .path
    }()

    static func path(_ relative: String) -> String { root + "/" + relative }
}

/// A fresh temporary directory, removed when the value is released.
final class TempDir {
    let path: String

    init() {
        var template = Array("/tmp/jb-audio-test-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Runs a program and returns its standard output (the real mpg123 binary, for reference decodes).
func run(_ executable: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}

/// Reads raw S16LE samples from a file.
func samples(ofFile path: String) -> [Int16] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    return samples(of: data)
}

func samples(of data: Data) -> [Int16] {
    data.withUnsafeBytes { raw in Array(raw.bindMemory(to: Int16.self)) }
}

/// mpg123's own decode of `files` (gapless, S16 native).
func referenceDecode(_ files: [String]) throws -> [Int16] {
    samples(of: try run("/usr/bin/mpg123", ["-q", "--gapless", "-s"] + files))
}

/// Largest absolute difference between two equally long sample arrays.
func maxDifference(_ a: [Int16], _ b: [Int16]) -> Int {
    var m = 0
    for i in 0..<min(a.count, b.count) { m = max(m, abs(Int(a[i]) - Int(b[i]))) }
    return m
}

/// What this thread's read calls returned so far (`rchar`): a probe or a seek runs on the
/// calling thread, so other tests running meanwhile do not count.
func bytesReadByThisThread() -> Int { Int(ProcessIO.readThisThread()?.rchar ?? 0) }
