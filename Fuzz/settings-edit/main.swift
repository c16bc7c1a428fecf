import JukeboxCore
import JukeboxWeb
import TOML

// The settings page writing a change into the config file's text (`SettingsFile.edit`). The
// input is the file's text, a NUL, the form's body (`k:audio.device=...&...`, as the page
// posts it), and optionally a NUL, a key (`table.name`) and a NUL and its value (none: the
// key is removed) for a change the form has no field for. An edit that succeeds must give a
// file that parses, with each changed key set once to the posted value (or gone), every other
// entry as it was, and every other line of the file kept in order.

/// The value a form's text gives a key of `kind`: its literal when it is one, else a string.
func expectedValue(_ text: String, kind: ConfigValidator.Kind) -> ConfigValue {
    switch kind {
    case .integer, .integerChoice:
        if let number = Int64(text) { return .integer(number) }
    case .number:
        if let number = Double(text), number.isFinite { return .float(number) }
    case .boolean:
        if text == "true" || text == "false" { return .bool(text == "true") }
    case .urls, .ruleList:
        let items = text.split(separator: "\n").map { trimmed(String($0)) }.filter { !$0.isEmpty }
        return .array(items.map { .string($0) })
    case .string, .choice, .path, .brokerURL:
        break
    }
    return .string(text)
}

func trimmed(_ text: String) -> String {
    var text = Substring(text)
    while text.first == " " { text.removeFirst() }
    while text.last == " " { text.removeLast() }
    return String(text)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let parts = fuzzBytes(data, size).split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
    // The file is read as UTF-8; a file that is not is refused before the page.
    guard let text = String(validating: parts[0], as: UTF8.self),
        case .success(let before) = TOMLParser.parse(text, fileName: "jukebox.toml")
    else { return 0 }
    let fields = SettingsFile.fields(of: before, text: text)
    let kinds = Dictionary(fields.map { ($0.key, $0.kind) }, uniquingKeysWith: { first, _ in first })
    let form = FormData(parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : "")
    var changes = SettingsFile.changes(posted: { form[$0] }, fields: fields)
    if parts.count > 2 {
        let key = String(decoding: parts[2], as: UTF8.self)
        let dot = key.lastIndex(of: ".")
        let change = SettingsChange(
            table: dot.map { String(key[..<$0]) } ?? "", name: dot.map { String(key[key.index(after: $0)...]) } ?? key,
            old: nil, new: parts.count > 3 ? String(decoding: parts[3], as: UTF8.self) : nil)
        if !changes.contains(where: { $0.key == change.key }) { changes.append(change) }
    }
    guard case .success(let edited) = SettingsFile.edit(text, fileName: "jukebox.toml", changes: changes, kinds: kinds)
    else { return 0 }

    guard case .success(let after) = TOMLParser.parse(edited, fileName: "jukebox.toml") else {
        fatalError("the edited file does not parse:\n\(edited)")
    }
    let changed = Set(changes.map(\.key))
    let others = { (document: ConfigDocument) in
        document.entries.filter { !changed.contains($0.qualifiedKey) }.map { "\($0.qualifiedKey) = \($0.value)" }
    }
    require(others(before) == others(after), "other entries changed:\n\(text)\n---\n\(edited)")
    for change in changes {
        let values = after.entries.filter { $0.qualifiedKey == change.key }.map(\.value)
        if let new = change.new {
            let expected = expectedValue(new, kind: kinds[change.key] ?? .string(allowEmpty: true))
            require(values == [expected], "\(change.key): \(values), posted \(expected)\n---\n\(edited)")
        } else {
            require(values.isEmpty, "\(change.key) removed but still \(values)\n---\n\(edited)")
        }
    }
    // The user's comments and other lines are kept, in their order.
    let changedLines = Set(before.entries.filter { changed.contains($0.qualifiedKey) }.compactMap(\.line))
    let kept = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        .filter { !changedLines.contains($0.offset + 1) }.map(\.element)
    var rest = edited.split(separator: "\n", omittingEmptySubsequences: false)[...]
    for line in kept {
        guard let at = rest.firstIndex(of: line) else {
            fatalError("the line '\(line)' is lost:\n\(text)\n---\n\(edited)")
        }
        rest = rest[(at + 1)...]
    }
    return 0
}
