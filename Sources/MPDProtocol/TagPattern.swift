/// The regular expression of a `=~`/`!~` filter, found anywhere in a tag's value as PCRE
/// finds it in MPD. A client's pattern runs over every song of the library on the control
/// loop, so patterns whose matching can take exponential time are refused: a quantified group
/// that holds a quantifier or an alternation (`(a+)+`, `(a|aa)*`), and back-references. Such
/// patterns are rare in a tag filter; a hung box is not.
public struct TagPattern: Sendable, Equatable {
    public let source: String
    public let ignoringCase: Bool
    nonisolated(unsafe) let regex: Regex<AnyRegexOutput>

    /// The longest pattern taken: longer ones are refused.
    public static let maximumLength = 256

    public init(_ source: String, ignoringCase: Bool) throws(MPDError) {
        guard source.unicodeScalars.count <= Self.maximumLength else {
            throw MPDError(.argument, "Regular expression too long (at most \(Self.maximumLength) characters)")
        }
        if let problem = Self.backtrackingProblem(source) { throw MPDError(.argument, problem) }
        do {
            let compiled = try Regex(source)
            regex = ignoringCase ? compiled.ignoresCase() : compiled
        } catch {
            throw MPDError(.argument, "Invalid regular expression")
        }
        self.source = source
        self.ignoringCase = ignoringCase
    }

    public func isFound(in text: String) -> Bool { text.contains(regex) }

    public static func == (a: TagPattern, b: TagPattern) -> Bool {
        a.source == b.source && a.ignoringCase == b.ignoringCase
    }

    /// Why matching `source` may backtrack without bound, or nil. A scan over the pattern's
    /// characters keeping, per open group, whether it holds a quantifier or an alternation.
    static func backtrackingProblem(_ source: String) -> String? {
        let scalars = Array(source.unicodeScalars)
        var groups: [Bool] = []  // per open group: holds a quantifier or `|`
        var index = 0
        var inClass = false
        func isQuantifier(_ i: Int) -> Bool {
            i < scalars.count && (scalars[i] == "*" || scalars[i] == "+" || scalars[i] == "?" || scalars[i] == "{")
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" {
                if index + 1 < scalars.count, ("1"..."9").contains(scalars[index + 1]) || scalars[index + 1] == "k" {
                    return "Back-references are not supported in filters"
                }
                index += 2
                if isQuantifier(index), !groups.isEmpty { groups[groups.count - 1] = true }
                continue
            }
            if inClass {
                if scalar == "]" { inClass = false }
                index += 1
                if !inClass, isQuantifier(index), !groups.isEmpty { groups[groups.count - 1] = true }
                continue
            }
            switch scalar {
            case "[": inClass = true
            case "(": groups.append(false)
            case "|": if !groups.isEmpty { groups[groups.count - 1] = true }
            case ")":
                let risky = groups.popLast() ?? false
                if isQuantifier(index + 1) {
                    if risky {
                        return "Regular expression too complex (a repeated group with a repetition or '|' inside)"
                    }
                    if !groups.isEmpty { groups[groups.count - 1] = true }
                }
                if risky, !groups.isEmpty { groups[groups.count - 1] = true }
            case "*", "+", "?", "{": if !groups.isEmpty { groups[groups.count - 1] = true }
            default: break
            }
            index += 1
        }
        return nil
    }
}
