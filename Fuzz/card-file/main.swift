import JukeboxCore

// A tag card file (cards.csv or cards.toml) as the daemon loads it, and written back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    for format in [TagCardFile.Format.csv, .toml] {
        let (cards, _) = TagCardFile.parse(text, as: format)
        _ = TagCardFile.parse(TagCardFile.text(cards, as: format), as: format)
    }
    return 0
}
