import JukeboxCore

// What the console (a terminal, the serial console) sends: the bytes through the key decoder
// (escape sequences of arrow and function keys), and each line as a console command.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var keys = TerminalKeyDecoder()
    _ = keys.feed(bytes)
    for line in fuzzLines(bytes) { _ = CommandParser.parse(line) }
    return 0
}
