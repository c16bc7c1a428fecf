// Statistics, the results table and the results.md writer.
import Foundation

struct Stat {
    let values: [Double]
    init(_ v: [Double]) { values = v.sorted() }
    var isEmpty: Bool { values.isEmpty }
    var median: Double {
        let n = values.count
        guard n > 0 else { return .nan }
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    }
    var min: Double { values.first ?? .nan }
    var max: Double { values.last ?? .nan }
    func fmt(_ d: Int, _ unit: String = "") -> String {
        guard !isEmpty else { return "no data" }
        return "\(f(median, d))\(unit) (\(f(min, d))–\(f(max, d)), n=\(values.count))"
    }
}

func f(_ x: Double, _ d: Int) -> String { x.isFinite ? String(format: "%.\(d)f", x) : "—" }

/// "k1=v1 k2=v2 ..." sorted by key, for detail lines.
func keyValueText<Value>(_ kv: [String: Value]) -> String {
    kv.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
}

func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

func human(bytes: Double) -> String {
    if bytes >= 1_000_000 { return String(format: "%.2f MB", bytes / 1e6) }
    if bytes >= 1000 { return String(format: "%.1f kB", bytes / 1e3) }
    return String(format: "%.0f B", bytes)
}

struct Row {
    var section: String
    var metric: String
    var jukeboxd: String
    var peer: String
    var ratio: String
    var target: String
    var verdict: String
}

final class Report: @unchecked Sendable {
    private(set) var rows: [Row] = []
    private(set) var details: [String] = []
    private(set) var errors: [String] = []
    var header: [String] = []

    func add(_ r: Row) { rows.append(r) }

    /// A line printed now and kept for results.md.
    func note(_ s: String) {
        print(s)
        fflush(nil)
        details.append(s)
    }

    func error(_ section: String, _ s: String) {
        let line = "[\(section)] ERROR: \(s)"
        print(line)
        fflush(nil)
        errors.append(line)
        details.append(line)
    }

    /// Ratio a/b as text, or a dash.
    static func ratio(_ a: Double?, _ b: Double?) -> String {
        guard let a, let b, a.isFinite, b.isFinite, b > 0 else { return "—" }
        return String(format: "%.2f×", a / b)
    }

    func table() -> String {
        let head = ["metric", "jukeboxd", "peer", "ratio", "target", "verdict"]
        let body = rows.map { [$0.metric, $0.jukeboxd, $0.peer, $0.ratio, $0.target, $0.verdict] }
        var lines = [
            "| " + head.joined(separator: " | ") + " |", "|" + head.map { _ in "---" }.joined(separator: "|") + "|",
        ]
        for r in body {
            lines.append("| " + r.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// A fixed-width rendering for the terminal.
    func plainTable() -> String {
        let head = ["metric", "jukeboxd", "peer", "ratio", "target", "verdict"]
        let body = rows.map { [$0.metric, $0.jukeboxd, $0.peer, $0.ratio, $0.target, $0.verdict] }
        var w = head.map(\.count)
        for r in body { for (i, c) in r.enumerated() { w[i] = Swift.max(w[i], c.count) } }
        func line(_ c: [String]) -> String {
            c.enumerated().map { $0.element.padding(toLength: w[$0.offset], withPad: " ", startingAt: 0) }.joined(
                separator: " | ")
        }
        return ([line(head), w.map { String(repeating: "-", count: $0) }.joined(separator: "-+-")] + body.map(line))
            .joined(separator: "\n")
    }

    func markdown() -> String {
        var s = "# jukebox-bench results\n\n" + header.map { "- \($0)" }.joined(separator: "\n") + "\n\n"
        s += table() + "\n\n"
        if !errors.isEmpty { s += "## Errors\n\n" + errors.map { "- \($0)" }.joined(separator: "\n") + "\n\n" }
        s += "## Details (as printed during the run)\n\n```\n" + details.joined(separator: "\n") + "\n```\n"
        return s
    }
}
