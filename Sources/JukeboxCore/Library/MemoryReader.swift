/// A `read(offset, count)` closure over bytes in memory, as the pure walkers (`ID3Tag`,
/// `FLACMetadataBlocks`, `OggComments`) take one: fewer bytes at the end, none outside.
public func memoryReader(_ bytes: [UInt8]) -> (Int64, Int) -> [UInt8] {
    { offset, count in
        guard offset >= 0, count > 0, offset < Int64(bytes.count) else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + count)])
    }
}
