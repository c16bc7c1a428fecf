import JukeboxCore
import TOML

// A config file as DaemonConfig.load reads it: UTF-8 text, TOML, then the validator into a
// JukeboxConfig (every folder taken as existing).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let text = String(validating: bytes, as: UTF8.self),
        case .success(let document) = TOMLParser.parse(text, fileName: "jukebox.toml")
    else { return 0 }
    let result = ConfigValidator.validate(document) { _ in nil }
    for diagnostic in result.diagnostics { _ = diagnostic.description }
    return 0
}
