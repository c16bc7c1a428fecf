/// The rows of a reply too large to build at once (`listallinfo`, `find`, `search` over a
/// whole library): made a batch at a time as the connection takes them, from the library as
/// it was when the command ran, so a reply of 100,000 songs never sits in memory whole.
/// Ends with its `tail` (the `OK`).
public struct MPDReplyStream {
    private let batch: () -> MPDResponse?
    var tail: [UInt8] = []

    /// About this many bytes of rows per batch.
    static let batchBytes = 16384

    /// Writes each of `rows` with `write`.
    init<Rows: IteratorProtocol>(_ rows: Rows, write: @escaping (Rows.Element, inout MPDResponse) -> Void) {
        var rows = rows
        batch = {
            var response = MPDResponse()
            while response.bytes.count < Self.batchBytes, let row = rows.next() { write(row, &response) }
            return response.bytes.isEmpty ? nil : response
        }
    }

    /// Appends the next batch of rows, or the tail when none are left: true when the reply ended.
    public mutating func next(into bytes: inout [UInt8]) -> Bool {
        if let rows = batch() {
            bytes += rows.bytes
            return false
        }
        bytes += tail
        tail = []
        return true
    }

    /// Appends the whole rest of the reply (the consoles, command lists).
    mutating func drain(into bytes: inout [UInt8]) {
        while !next(into: &bytes) {}
    }
}
