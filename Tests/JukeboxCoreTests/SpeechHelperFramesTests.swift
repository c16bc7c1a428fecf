import JukeboxCore
import Testing

/// The speech helper's frames: what is sent comes back the same, a frame cut anywhere waits
/// for the rest, and a garbled or oversized frame is refused from its first bytes.
@Suite struct SpeechHelperFramesTests {
    typealias Frames = SpeechHelperFrames

    static let hello = Frames.Request(voice: "en", wordsPerMinute: 160, maxSeconds: 60, text: "Hello, Ünïcödé ✓")

    /// A frame of `body` with its length prefix.
    static func frame(_ body: [UInt8], length: UInt32? = nil) -> [UInt8] {
        let count = length ?? UInt32(body.count)
        return (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) } + body
    }

    static let requests: [Frames.Request] = [
        hello,
        Frames.Request(voice: "en-us", wordsPerMinute: 80, maxSeconds: 1, text: ""),
        Frames.Request(voice: "fr", wordsPerMinute: 450, maxSeconds: 600, text: "\u{D5F}"),
        Frames.Request(
            voice: String(repeating: "v", count: Frames.maxVoiceBytes), wordsPerMinute: 175, maxSeconds: 60,
            text: String(repeating: "\u{10348}", count: Announcements.maxScalars)),
    ]

    @Test(arguments: requests) func aRequestComesBackAsItWasSent(_ request: Frames.Request) throws {
        let bytes = try Frames.encode(request)
        #expect(Frames.decodeRequest(bytes[...]) == .frame(request, length: bytes.count))
        // Followed by the start of the next: only the first is taken.
        let two = bytes + bytes.prefix(3)
        #expect(Frames.decodeRequest(two[...]) == .frame(request, length: bytes.count))
    }

    @Test func aRequestCutAnywhereWaitsForTheRest() throws {
        let bytes = try Frames.encode(Self.hello)
        for cut in 0..<bytes.count {
            #expect(Frames.decodeRequest(bytes[..<cut]) == .incomplete, "cut at \(cut)")
        }
    }

    static let requestsOverALimit: [(Frames.Request, String)] = [
        (Frames.Request(voice: "", wordsPerMinute: 160, maxSeconds: 60, text: "hi"), "the voice name has 0 bytes"),
        (
            Frames.Request(
                voice: String(repeating: "v", count: Frames.maxVoiceBytes + 1), wordsPerMinute: 160, maxSeconds: 60,
                text: "hi"), "the voice name has 65 bytes"
        ),
        (Frames.Request(voice: "en", wordsPerMinute: 79, maxSeconds: 60, text: "hi"), "79 words per minute"),
        (Frames.Request(voice: "en", wordsPerMinute: 160, maxSeconds: 0, text: "hi"), "0 seconds of speech"),
        (
            Frames.Request(
                voice: "en", wordsPerMinute: 160, maxSeconds: 60,
                text: String(repeating: "a", count: Announcements.maxScalars + 1)), "at most 800 scalars"
        ),
    ]

    @Test(arguments: requestsOverALimit)
    func aRequestOverALimitIsNotSent(_ request: Frames.Request, _ message: String) {
        #expect(throws: Frames.FrameError.self) { try Frames.encode(request) }
        do {
            _ = try Frames.encode(request)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    /// `bytes`, then `text`'s UTF-8.
    static func body(_ bytes: [UInt8], _ text: String = "") -> [UInt8] { bytes + Array(text.utf8) }

    static let q = UInt8(ascii: "Q")
    static let garbledRequests: [([UInt8], String)] = [
        ([], "a frame of 0 bytes"),
        (body([], "Q"), "not a request"),
        (body([UInt8(ascii: "R"), 160, 0, 60, 0, 2], "enhi"), "not a request"),
        (body([q, 0, 0, 60, 0, 2], "enhi"), "0 words per minute"),
        (body([q, 160, 0, 0x59, 2, 2], "enhi"), "601 seconds of speech"),
        (body([q, 160, 0, 60, 0, 0], "hi"), "a voice name of 0 bytes"),
        (body([q, 160, 0, 60, 0, 9], "enhi"), "a voice name of 9 bytes"),
        (body([q, 160, 0, 60, 0, 2, 0x65, 0x6E, 0xC3, 0x28]), "not UTF-8"),
        (body([q, 160, 0, 60, 0, 2, 0xFF, 0xFE], "hi"), "not UTF-8"),
    ]

    /// Bodies that are no request: each is refused, with a reason.
    @Test(arguments: garbledRequests)
    func aGarbledRequestIsRefused(_ body: [UInt8], _ reason: String) {
        guard case .garbled(let why) = Frames.decodeRequest(Self.frame(body)[...]) else {
            Issue.record("taken: \(body)")
            return
        }
        #expect(why.contains(reason), "\(why)")
    }

    @Test func aRequestLongerThanAnyIsRefusedFromItsLengthAlone() {
        // Only the length: no body is waited for.
        let prefix = Self.frame([], length: UInt32(6 + Frames.maxVoiceBytes + Frames.maxTextBytes + 1))
        guard case .garbled(let why) = Frames.decodeRequest(prefix[...]) else {
            Issue.record("waited for the body")
            return
        }
        #expect(why.contains("a frame of 3271 bytes"), "\(why)")
        #expect(Frames.decodeRequest(Self.frame([], length: .max)[...]) != .incomplete)
    }

    // MARK: replies

    static let replies: [Frames.Reply] = [
        .spoken(samples: [0, 1, -1, .max, .min, 12345], sampleRate: 22050),
        .spoken(samples: [], sampleRate: 8000),
        .spoken(samples: [Int16](repeating: -7, count: 100), sampleRate: 48000),
        .failed("espeak-ng has no voice \"xx\""),
        .unavailable("speech needs libespeak-ng1 (libespeak-ng.so.1: cannot open shared object file)"),
        .failed(""),
    ]

    @Test(arguments: replies) func aReplyComesBackAsItWasSent(_ reply: Frames.Reply) {
        let bytes = Frames.encode(reply, maxSeconds: 1)
        #expect(Frames.decodeReply(bytes[...], maxSeconds: 1) == .frame(reply, length: bytes.count))
        for cut in [0, 3, 4, 5, 8, bytes.count - 1] where cut < bytes.count {
            #expect(Frames.decodeReply(bytes[..<cut], maxSeconds: 1) == .incomplete, "cut at \(cut)")
        }
    }

    @Test func aReplyIsCutToItsLimits() {
        // More samples than the request's seconds: the first second's only.
        let long = Frames.encode(.spoken(samples: [Int16](repeating: 3, count: 8001), sampleRate: 8000), maxSeconds: 1)
        #expect(
            Frames.decodeReply(long[...], maxSeconds: 1)
                == .frame(.spoken(samples: [Int16](repeating: 3, count: 8000), sampleRate: 8000), length: long.count))
        // A message longer than the limit, cut before a scalar.
        let message = String(repeating: "é", count: Frames.maxMessageBytes)
        let cut = Frames.encode(.failed(message), maxSeconds: 1)
        #expect(
            Frames.decodeReply(cut[...], maxSeconds: 1)
                == .frame(.failed(String(repeating: "é", count: Frames.maxMessageBytes / 2)), length: cut.count))
    }

    static let garbledReplies: [([UInt8], String)] = [
        ([], "a frame of 0 bytes"),
        (body([], "X"), "not a reply"),
        (body([0x53, 0x22, 0x56, 0, 0]), "not a reply"),
        (body([0x53, 0x22, 0x56, 0, 0, 1, 0, 0, 0]), "1 samples in 0 bytes"),
        (body([0x53, 0x22, 0x56, 0, 0, 0, 0, 0, 0, 7]), "0 samples in 1 bytes"),
        (body([0x53, 0x40, 0x1F, 0, 0, 0x41, 0x1F, 0, 0]), "8001 samples, more than 1 s at 8000 Hz"),
        (body([0x53, 0x3F, 0x1F, 0, 0, 0, 0, 0, 0]), "a sample rate of 7999"),
        (body([0x53, 0x81, 0xBB, 0, 0, 0, 0, 0, 0]), "a sample rate of 48001"),
        (body([0x46, 0xC3, 0x28]), "not UTF-8"),
        (body([0x55], String(repeating: "a", count: SpeechHelperFrames.maxMessageBytes + 1)), "too long"),
    ]

    /// Bodies that are no reply to a request for one second: each is refused, with a reason.
    @Test(arguments: garbledReplies)
    func aGarbledReplyIsRefused(_ body: [UInt8], _ reason: String) {
        guard case .garbled(let why) = Frames.decodeReply(Self.frame(body)[...], maxSeconds: 1) else {
            Issue.record("taken: \(body.prefix(16))")
            return
        }
        #expect(why.contains(reason), "\(why)")
    }

    @Test func aReplyLongerThanTheRequestsSecondsIsRefusedFromItsLengthAlone() {
        let limit = 9 + 2 * 48000
        #expect(Frames.decodeReply(Self.frame([], length: UInt32(limit))[...], maxSeconds: 1) == .incomplete)
        guard case .garbled(let why) = Frames.decodeReply(Self.frame([], length: UInt32(limit + 1))[...], maxSeconds: 1)
        else {
            Issue.record("waited for the body")
            return
        }
        #expect(why.contains("a frame of 96010 bytes"), "\(why)")
    }

    /// Every cut and every byte flipped of a reply: incomplete, garbled or a reply within the
    /// limits, never a trap or more samples than asked for.
    @Test func aDamagedReplyNeverGivesMoreThanWasAskedFor() {
        let bytes = Frames.encode(.spoken(samples: [1, 2, 3, 4, 5], sampleRate: 22050), maxSeconds: 1)
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = bytes
                damaged[index] ^= flip
                if case .frame(.spoken(let samples, let rate), let length) = Frames.decodeReply(
                    damaged[...], maxSeconds: 1)
                {
                    #expect(samples.count <= rate && length <= damaged.count, "byte \(index) ^ \(flip)")
                }
            }
        }
    }
}
