import JukeboxCore

// A podcast feed (RSS or Atom) as libxml2's reader hands its nodes to the parser, one node a
// line: `<name namespace` (then `attribute=value` lines starting with `@`) opens an element,
// `>` closes one, any other line is text. Dates in the text go through FeedDate too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var parser = FeedParser()
    var pending: (name: String, namespace: String, attributes: [(name: String, value: String)])?
    func open() throws(FeedProblem) {
        if let element = pending {
            try parser.start(name: element.name, namespace: element.namespace, attributes: element.attributes)
        }
        pending = nil
    }
    do throws(FeedProblem) {
        for line in fuzzLines(fuzzBytes(data, size)) {
            if line.hasPrefix("@"), pending != nil {
                let pair = line.dropFirst().split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                pending?.attributes.append((String(pair[0]), pair.count > 1 ? String(pair[1]) : ""))
                continue
            }
            try open()
            if line.hasPrefix("<") {
                let parts = line.dropFirst().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                pending = (String(parts[0]), parts.count > 1 ? String(parts[1]) : "", [])
            } else if line == ">" {
                parser.end()
            } else {
                parser.text(line)
                _ = FeedDate.parse(line)
            }
        }
        try open()
        _ = try parser.finish()
    } catch {}
    return 0
}
