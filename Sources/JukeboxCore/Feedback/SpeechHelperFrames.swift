/// The frames jukeboxd and its speech helper (`jukeboxd --speech-helper`, which alone loads
/// espeak-ng) exchange over the helper's standard input and output. Each frame is a 4-byte
/// little-endian length, then that many bytes:
///
/// - a request: `Q`, words per minute (u16), the longest speech in seconds (u16), the voice's
///   length (u8), the voice (UTF-8), the text (UTF-8, the rest);
/// - a reply: `S`, the sample rate (u32), the sample count (u32), the samples (S16, mono); or
///   `F` (this text could not be spoken) or `U` (no speech on this machine), then a message.
///
/// Every field has a limit, so that a garbled or hostile frame is refused from its first bytes
/// and never makes the reader wait for, or allocate, more than a reply can hold.
public enum SpeechHelperFrames {
    /// What to say and how.
    public struct Request: Equatable, Sendable {
        public var voice: String
        public var wordsPerMinute: Int
        public var maxSeconds: Int
        public var text: String

        public init(voice: String, wordsPerMinute: Int, maxSeconds: Int, text: String) {
            self.voice = voice
            self.wordsPerMinute = wordsPerMinute
            self.maxSeconds = maxSeconds
            self.text = text
        }
    }

    /// The helper's answer to one request.
    public enum Reply: Equatable, Sendable {
        /// The speech: mono samples at `sampleRate`.
        case spoken(samples: [Int16], sampleRate: Int)
        /// This text could not be spoken (espeak-ng's message; an unknown voice).
        case failed(String)
        /// Speech cannot be made on this machine at all (libespeak-ng1 or its data missing).
        case unavailable(String)
    }

    /// What a reader has after the bytes it holds.
    public enum Decoded<Value: Equatable>: Equatable {
        /// Not a whole frame yet: read more.
        case incomplete
        /// A frame, and the bytes it took (to drop from the front).
        case frame(Value, length: Int)
        /// Not a frame of this protocol: the stream cannot be trusted any more.
        case garbled(String)
    }

    /// Why a request cannot be framed.
    public struct FrameError: Error, Equatable, Sendable {
        public var message: String
    }

    /// Words per minute espeak-ng takes (`[speech] rate`).
    public static let wordsPerMinute = 80...450
    /// The longest speech a request may ask for.
    public static let maxSeconds = 1...600
    public static let maxVoiceBytes = 64
    /// Announcements' own limit, each scalar at most 4 bytes of UTF-8.
    public static let maxTextBytes = Announcements.maxScalars * 4
    public static let maxMessageBytes = 1024
    /// The sample rates a reply may have (espeak-ng's is 22050).
    public static let sampleRates = 8000...48000

    static let lengthBytes = 4
    static let requestKind = UInt8(ascii: "Q")
    static let spokenKind = UInt8(ascii: "S")
    static let failedKind = UInt8(ascii: "F")
    static let unavailableKind = UInt8(ascii: "U")
    /// Kind, rate, voice length.
    static let requestFixedBytes = 1 + 2 + 2 + 1
    /// Kind, sample rate, sample count.
    static let spokenFixedBytes = 1 + 4 + 4

    /// The longest request body.
    static var maxRequestBytes: Int { requestFixedBytes + maxVoiceBytes + maxTextBytes }

    /// The longest reply body to a request for `maxSeconds` of speech.
    static func maxReplyBytes(maxSeconds: Int) -> Int {
        max(spokenFixedBytes + 2 * maxSeconds * sampleRates.upperBound, 1 + maxMessageBytes)
    }

    // MARK: requests

    /// `request` as a frame, or why it cannot be sent.
    public static func encode(_ request: Request) throws(FrameError) -> [UInt8] {
        let voice = Array(request.voice.utf8)
        let text = Array(request.text.utf8)
        if voice.isEmpty || voice.count > maxVoiceBytes {
            throw FrameError(message: "the voice name has \(voice.count) bytes, 1 to \(maxVoiceBytes) are taken")
        }
        if text.count > maxTextBytes || request.text.unicodeScalars.count > Announcements.maxScalars {
            throw FrameError(
                message: "the text has \(text.count) bytes, at most \(Announcements.maxScalars) scalars are spoken")
        }
        guard wordsPerMinute.contains(request.wordsPerMinute) else {
            throw FrameError(message: "\(request.wordsPerMinute) words per minute, \(wordsPerMinute) are taken")
        }
        guard maxSeconds.contains(request.maxSeconds) else {
            throw FrameError(message: "\(request.maxSeconds) seconds of speech asked, \(maxSeconds) are taken")
        }
        var body = [requestKind]
        body.reserveCapacity(requestFixedBytes + voice.count + text.count)
        append(UInt16(request.wordsPerMinute), to: &body)
        append(UInt16(request.maxSeconds), to: &body)
        body.append(UInt8(voice.count))
        body += voice
        body += text
        return framed(body)
    }

    /// The request at the front of `bytes`.
    public static func decodeRequest(_ bytes: ArraySlice<UInt8>) -> Decoded<Request> {
        let body: ArraySlice<UInt8>
        switch frameBody(bytes, limit: maxRequestBytes) {
        case .incomplete: return .incomplete
        case .garbled(let why): return .garbled(why)
        case .frame(let found, _): body = found
        }
        let length = lengthBytes + body.count
        guard body.count >= requestFixedBytes, body.first == requestKind else {
            return .garbled("not a request (\(body.count) bytes, kind \(body.first.map(String.init) ?? "none"))")
        }
        let start = body.startIndex
        let rate = Int(readUInt16(body, at: start + 1))
        let seconds = Int(readUInt16(body, at: start + 3))
        let voiceCount = Int(body[start + 5])
        guard wordsPerMinute.contains(rate) else { return .garbled("\(rate) words per minute") }
        guard maxSeconds.contains(seconds) else { return .garbled("\(seconds) seconds of speech") }
        let voiceStart = start + requestFixedBytes
        guard voiceCount > 0, voiceCount <= maxVoiceBytes, voiceStart + voiceCount <= body.endIndex else {
            return .garbled("a voice name of \(voiceCount) bytes in a request of \(body.count)")
        }
        guard let voice = String(validating: body[voiceStart..<voiceStart + voiceCount], as: UTF8.self),
            let text = String(validating: body[(voiceStart + voiceCount)...], as: UTF8.self)
        else { return .garbled("the voice or the text is not UTF-8") }
        guard text.unicodeScalars.count <= Announcements.maxScalars else {
            return .garbled("a text of \(text.unicodeScalars.count) scalars")
        }
        return .frame(Request(voice: voice, wordsPerMinute: rate, maxSeconds: seconds, text: text), length: length)
    }

    // MARK: replies

    /// `reply` as a frame; a message is cut to `maxMessageBytes` (at a scalar's start), the
    /// samples to what `maxSeconds` of them at its rate hold.
    public static func encode(_ reply: Reply, maxSeconds: Int) -> [UInt8] {
        switch reply {
        case .spoken(let samples, let sampleRate):
            precondition(sampleRates.contains(sampleRate), "a sample rate of \(sampleRate)")
            let count = min(samples.count, maxSeconds * sampleRate)
            var body = [spokenKind]
            body.reserveCapacity(spokenFixedBytes + 2 * count)
            append(UInt32(sampleRate), to: &body)
            append(UInt32(count), to: &body)
            for sample in samples[..<count] { append(UInt16(bitPattern: sample), to: &body) }
            return framed(body)
        case .failed(let message):
            return framed([failedKind] + cut(message))
        case .unavailable(let message):
            return framed([unavailableKind] + cut(message))
        }
    }

    /// The reply at the front of `bytes`, to a request for `maxSeconds` of speech.
    public static func decodeReply(_ bytes: ArraySlice<UInt8>, maxSeconds: Int) -> Decoded<Reply> {
        let body: ArraySlice<UInt8>
        switch frameBody(bytes, limit: maxReplyBytes(maxSeconds: maxSeconds)) {
        case .incomplete: return .incomplete
        case .garbled(let why): return .garbled(why)
        case .frame(let found, _): body = found
        }
        let length = lengthBytes + body.count
        let start = body.startIndex
        switch body.first {
        case spokenKind where body.count >= spokenFixedBytes:
            let sampleRate = Int(readUInt32(body, at: start + 1))
            let count = Int(readUInt32(body, at: start + 5))
            guard sampleRates.contains(sampleRate) else { return .garbled("a sample rate of \(sampleRate)") }
            guard count <= maxSeconds * sampleRate else {
                return .garbled("\(count) samples, more than \(maxSeconds) s at \(sampleRate) Hz")
            }
            guard body.count == spokenFixedBytes + 2 * count else {
                return .garbled("\(count) samples in \(body.count - spokenFixedBytes) bytes")
            }
            let first = start + spokenFixedBytes
            let samples = [Int16](unsafeUninitializedCapacity: count) { buffer, initialized in
                for index in 0..<count {
                    buffer[index] = Int16(bitPattern: readUInt16(body, at: first + 2 * index))
                }
                initialized = count
            }
            return .frame(.spoken(samples: samples, sampleRate: sampleRate), length: length)
        case failedKind, unavailableKind:
            guard body.count - 1 <= maxMessageBytes,
                let message = String(validating: body[(start + 1)...], as: UTF8.self)
            else { return .garbled("a message of \(body.count - 1) bytes that is not UTF-8 or too long") }
            return .frame(body.first == failedKind ? .failed(message) : .unavailable(message), length: length)
        default:
            return .garbled("not a reply (\(body.count) bytes, kind \(body.first.map(String.init) ?? "none"))")
        }
    }

    // MARK: the framing

    /// The body of the frame at the front of `bytes` (its length prefix refused at once when
    /// it is over `limit`).
    private static func frameBody(_ bytes: ArraySlice<UInt8>, limit: Int) -> Decoded<ArraySlice<UInt8>> {
        guard bytes.count >= lengthBytes else { return .incomplete }
        let count = Int(readUInt32(bytes, at: bytes.startIndex))
        guard count > 0, count <= limit else { return .garbled("a frame of \(count) bytes (1 to \(limit) are taken)") }
        guard bytes.count >= lengthBytes + count else { return .incomplete }
        let start = bytes.startIndex + lengthBytes
        return .frame(bytes[start..<start + count], length: lengthBytes + count)
    }

    private static func framed(_ body: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(lengthBytes + body.count)
        append(UInt32(body.count), to: &frame)
        return frame + body
    }

    /// `message`'s UTF-8, at most `maxMessageBytes`, cut before a scalar.
    private static func cut(_ message: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in message.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            if bytes.count + encoded.count > maxMessageBytes { break }
            bytes += encoded
        }
        return bytes
    }

    private static func append<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: Value.bitWidth, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    private static func readUInt16(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt16 {
        UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    private static func readUInt32(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[index + $1]) << (8 * $1) }
    }
}
