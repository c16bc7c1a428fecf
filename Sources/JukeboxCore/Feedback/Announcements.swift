/// Spoken announcements (`say "text"`, and events a box without a screen cannot show): which
/// text is spoken when, one at a time, in order, with a limit on the text and on the waiting
/// line. The daemon performs the actions: it synthesizes the text off the audio thread, then
/// has the output mix the speech over the music, which ducks under it and comes back. Time is
/// given, never read.
public struct Announcements: Sendable {
    /// The longest text spoken (in characters): about 15 s of speech.
    public static let maxCharacters = 200
    /// And in Unicode scalars: a combining mark joins the Character before it, so one
    /// Character can hold any number of them (200 decomposed accented letters are 400).
    public static let maxScalars = 800
    /// Texts waiting behind the one being spoken; more are refused.
    public static let maxWaiting = 4
    /// Speech that has not ended this long after it was handed over (its length plus this)
    /// is given up on, so that a device that never plays it cannot hold the line.
    public static let graceMs: Int64 = 5000

    /// An event a box without a screen says aloud, when `[speech] events` is on.
    public enum Event: Sendable, Equatable {
        /// A card the mapping does not know.
        case unknownCard
        /// The box's addresses, as the system lists them (IPv6 and loopback are left out:
        /// nobody types an IPv6 address heard aloud), and the web page's port (nil: the page
        /// is not on the network). Spoken on request (`say_address`), not only with `events`.
        case address([String], webPort: Int?)
        /// The day's listening budget ends in `leftMs`.
        case listeningTimeLeft(ms: Int64)
        /// The day's listening budget is used up.
        case listeningTimeOver

        /// Addresses spoken at most: three fit in `maxCharacters` with room to spare, and a
        /// box rarely has more than Wi-Fi, Ethernet and a USB gadget link.
        public static let maxAddresses = 3

        /// The words spoken.
        public var text: String {
            switch self {
            case .unknownCard: "unknown card"
            case .address(let addresses, let port): Self.addressWords(addresses, webPort: port)
            case .listeningTimeLeft(let ms): "\(Self.durationWords(ms)) of listening left"
            case .listeningTimeOver: "listening time is over for today"
            }
        }

        /// "jukebox at 192 dot 168 dot 1 dot 20, port 8080": each group of the address said
        /// as a number on its own (espeak-ng reads "192.168.1.20" as a decimal number).
        static func addressWords(_ addresses: [String], webPort: Int?) -> String {
            var spoken: [String] = []
            for address in addresses {
                guard let groups = ipv4Groups(address), groups[0] != 127 else { continue }
                let words = groups.map(String.init).joined(separator: " dot ")
                if !spoken.contains(words) { spoken.append(words) }
            }
            guard !spoken.isEmpty else { return "no network" }
            spoken = Array(spoken.prefix(maxAddresses))
            let list =
                spoken.count == 1 ? spoken[0] : spoken.dropLast().joined(separator: ", ") + " and " + spoken.last!
            return "jukebox at \(list)" + (webPort.map { ", port \($0)" } ?? "")
        }

        /// The four numbers of a dotted IPv4 address, else nil.
        static func ipv4Groups(_ address: String) -> [Int]? {
            let parts = address.split(separator: ".", omittingEmptySubsequences: false)
            var groups: [Int] = []
            for part in parts where (1...3).contains(part.count) && part.allSatisfy({ $0.isASCII && $0.isNumber }) {
                if let group = Int(part), group <= 255 { groups.append(group) }
            }
            return parts.count == 4 && groups.count == 4 ? groups : nil
        }

        /// "5 minutes", "1 minute", "90 seconds": whole minutes from 2 minutes up (to the
        /// nearest, so that a warning due at 5:00 and taken at 4:59.9 says 5), below that
        /// seconds to the nearest 10 unless they are a whole minute.
        static func durationWords(_ ms: Int64) -> String {
            let seconds = max(10, (max(0, ms) + 5000) / 10_000 * 10)
            if seconds < 120, seconds % 60 != 0 { return "\(seconds) seconds" }
            let minutes = max(1, (max(0, ms) + 30_000) / 60_000)
            return minutes == 1 ? "1 minute" : "\(minutes) minutes"
        }
    }

    /// The port to say with the address: the web page's, unless it listens on this machine
    /// only (then a phone on the network cannot open it).
    public static func webPort(address: String, port: Int) -> Int? {
        let local = ["127.0.0.1", "localhost", "::1"].contains(address.lowercased()) || address.hasPrefix("127.")
        return local ? nil : port
    }

    /// What the daemon does next.
    public enum Action: Sendable, Equatable {
        /// Make `text`'s speech (off the audio thread), then report `.synthesized` or `.failed`.
        case synthesize(String)
        /// Hand the speech just made to the output (it reports `.ended` when heard).
        case speak
    }

    /// What happened.
    public enum Input: Sendable, Equatable {
        /// The speech of the text asked for is ready: `lengthMs` long.
        case synthesized(lengthMs: Int64)
        /// It could not be made (the message says why).
        case failed(String)
        /// The output played it to its end (or dropped it).
        case ended
        /// Time passed (the daemon's loop): speech that never ended is given up on.
        case tick
    }

    /// Where the one text in hand is.
    public enum Phase: Sendable, Equatable {
        case idle
        case synthesizing(String)
        /// Handed to the output, given up on at `deadline`.
        case speaking(deadline: Instant)
    }

    public let enabled: Bool
    public private(set) var phase = Phase.idle
    public private(set) var waiting: [String] = []

    /// When to `tick` next: the speaking text's deadline.
    public var nextDeadline: Instant? {
        if case .speaking(let deadline) = phase { return deadline }
        return nil
    }

    public init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Why `text` cannot be spoken at all (empty, too long, speech off), else nil.
    public static func refusal(of text: String, enabled: Bool = true) -> String? {
        guard enabled else { return "speech is off ([speech] enabled = false)" }
        if text.allSatisfy(\.isWhitespace) { return "nothing to say" }
        if text.count > maxCharacters {
            return "the text has \(text.count) characters, at most \(maxCharacters) are spoken"
        }
        if text.unicodeScalars.count > maxScalars {
            return
                "the text has \(text.unicodeScalars.count) Unicode scalars (letters and marks), at most \(maxScalars) are spoken"
        }
        return nil
    }

    /// The last Unicode version whose scalars are handed to espeak-ng (Debian 12's 1.51 reads
    /// its character tables from about then); later ones are left out.
    static let newestUnicode = (major: 12, minor: 1)

    /// `text` as it is handed to espeak-ng: control characters (a tab, a bell, a line break)
    /// become spaces; scalars no Unicode version up to `newestUnicode` assigns, private-use
    /// ones and noncharacters are left out (nothing is said for them). espeak-ng 1.51 reads
    /// freed memory on such scalars in another alphabet's range (`ПП\u{380}`; fuzz finding
    /// 10), and any MPD client can send the text. It does so on some assigned ones too (Indic
    /// digits, Greek tonos): that part is open (docs/FUZZING.md).
    public static func speakable(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            if properties.generalCategory == .control {
                scalars.append(" ")
                continue
            }
            guard let age = properties.age,
                age.major < newestUnicode.major
                    || (age.major == newestUnicode.major && age.minor <= newestUnicode.minor),
                properties.generalCategory != .privateUse, !properties.isNoncharacterCodePoint
            else { continue }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// Asks for `text` to be spoken (as `speakable` makes it): now when nothing is, else after
    /// what waits. Refused (with the message) when the text cannot be spoken or the line is full.
    public mutating func say(_ text: String) -> Result<[Action], CommandError> {
        if let refusal = Self.refusal(of: text, enabled: enabled) {
            return .failure(.badArgument(command: "say", problem: refusal))
        }
        let text = Self.speakable(text)
        if text.allSatisfy(\.isWhitespace) {
            return .failure(.badArgument(command: "say", problem: "nothing to say"))
        }
        guard phase != .idle else {
            phase = .synthesizing(text)
            return .success([.synthesize(text)])
        }
        guard waiting.count < Self.maxWaiting else {
            return .failure(.badArgument(command: "say", problem: "busy: \(Self.maxWaiting) texts wait to be spoken"))
        }
        waiting.append(text)
        return .success([])
    }

    /// Says `event`'s words, unless the line is full (an event is not worth an error).
    public mutating func announce(_ event: Event) -> [Action] {
        (try? say(event.text).get()) ?? []
    }

    public mutating func handle(_ input: Input, now: Instant) -> [Action] {
        switch (input, phase) {
        case (.synthesized(let lengthMs), .synthesizing):
            phase = .speaking(deadline: now.adding(milliseconds: lengthMs + Self.graceMs))
            return [.speak]
        case (.failed, .synthesizing), (.ended, .speaking):
            return next()
        case (.tick, .speaking(let deadline)) where now >= deadline:
            return next()
        default:
            return []
        }
    }

    /// The next waiting text, if any.
    private mutating func next() -> [Action] {
        guard !waiting.isEmpty else {
            phase = .idle
            return []
        }
        let text = waiting.removeFirst()
        phase = .synthesizing(text)
        return [.synthesize(text)]
    }
}
