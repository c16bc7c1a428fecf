/// Cuts a byte stream from a console (stdin, later a serial line) into command lines.
///
/// Line noise must not break the console: lines longer than `maxLineBytes` are dropped
/// whole (with one report), NUL and other control bytes are removed, and invalid UTF-8 is
/// repaired (U+FFFD) so the parser sees text. Both LF and CR end a line; CR LF counts once.
struct ConsoleLineBuffer {
    enum Line: Equatable {
        case text(String)
        case tooLong(bytes: Int)
    }

    let maxLineBytes: Int
    private var pending: [UInt8] = []
    private var discarding = false
    private var discardedBytes = 0
    private var lastWasCR = false

    init(maxLineBytes: Int = 4096) {
        self.maxLineBytes = maxLineBytes
        pending.reserveCapacity(256)
    }

    /// Feeds bytes just read; returns the complete lines they finish.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Line] where Bytes.Element == UInt8 {
        var lines: [Line] = []
        for byte in bytes {
            if byte == 0x0A && lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                if discarding {
                    lines.append(.tooLong(bytes: discardedBytes))
                    discarding = false
                    discardedBytes = 0
                } else {
                    lines.append(.text(String(decoding: pending, as: UTF8.self)))
                }
                pending.removeAll(keepingCapacity: true)
                continue
            }
            if discarding {
                discardedBytes += 1
                continue
            }
            if byte == 0x08 || byte == 0x7F {  // backspace / delete from a human at a terminal
                if !pending.isEmpty { pending.removeLast() }
                continue
            }
            if byte < 0x20 && byte != 0x09 { continue }
            pending.append(byte)
            if pending.count > maxLineBytes {
                discarding = true
                discardedBytes = pending.count
                pending.removeAll(keepingCapacity: true)
            }
        }
        return lines
    }
}
