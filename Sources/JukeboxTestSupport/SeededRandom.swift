import JukeboxCore

// The tests' seeded random source is the core's own SplitMix64 (the shuffle's generator):
// a failing schedule is replayed from its seed.
extension SplitMix64 {
    /// A number in `range`: `lowerBound + next() % count` (the modulo's slight bias does not
    /// matter to a test schedule).
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
