import TOML

// TOML text (the config file, TOML card files): the parser alone.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    if case .failure(let error) = TOMLParser.parse(text, fileName: "fuzz.toml") {
        _ = error.diagnostic(fileName: "fuzz.toml").description
    }
    return 0
}
