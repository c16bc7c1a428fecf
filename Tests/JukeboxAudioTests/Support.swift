import Foundation
import Glibc
import JukeboxTestSupport

/// Reads raw S16LE samples from a file.
func samples(ofFile path: String) -> [Int16] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    return samples(of: data)
}

func samples(of bytes: some ContiguousBytes) -> [Int16] {
    bytes.withUnsafeBytes { raw in Array(raw.bindMemory(to: Int16.self)) }
}

/// mpg123's own decode of `files` (gapless, S16 native).
func referenceDecode(_ files: [String]) throws -> [Int16] {
    samples(of: try run(["/usr/bin/mpg123", "-q", "--gapless", "-s"] + files).stdout)
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
