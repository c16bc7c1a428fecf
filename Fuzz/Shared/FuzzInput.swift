// Compiled into every Swift fuzz target (Fuzz/fuzz.sh): the input as bytes, and the readers
// the daemon's adapters hand the pure walkers.

/// The fuzz input as bytes.
func fuzzBytes(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: start, count: count))
}

/// The most one read may ask for: the daemon's file reader allocates the whole count before
/// reading (JukeboxStore's MusicFolder.read), so a walker asking for more blows up memory.
let largestRead = 64 << 20

/// `bytes` as a file read with pread (MusicFolder.read): fewer bytes at the end, none past
/// it or at a negative offset (pread's EINVAL, which the walk reports as a read error).
func fileReader(_ bytes: [UInt8]) -> (Int64, Int) -> [UInt8] {
    { offset, count in
        precondition(count <= largestRead, "a read of \(count) bytes")
        guard count > 0, offset >= 0, offset < Int64(bytes.count) else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<start + min(count, bytes.count - start)])
    }
}

/// Splits the input at newlines into lines of text (invalid UTF-8 repaired, as the daemon's
/// line readers do).
func fuzzLines(_ bytes: [UInt8]) -> [String] {
    bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
}

/// A harness's invariant: `precondition`'s message is dropped in -O builds; this one prints
/// it, so that a finding's log says what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
