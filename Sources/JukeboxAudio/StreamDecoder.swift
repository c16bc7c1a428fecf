import Glibc
import HTTP
import JukeboxCore
import LinuxSupport
import Logging

// Web radio. An item whose path is an http(s) URL is a live stream: a `StationConnection` on
// its own thread (jb-net) fetches it with libcurl (a station playlist first when the URL names
// one), splits the ICY metadata off, and writes the audio bytes into a pipe; the stream's
// decoder (libmpg123, libvorbisfile, libopusfile or FFmpeg's AAC) reads the pipe on jb-decode
// as it would a file. No network I/O happens
// on jb-decode or jb-output: jb-decode only blocks in read(2) on the pipe, which the
// connection closes when it stops. A drop reconnects with `ReconnectBackoff` and goes on
// writing into the same pipe, so the same decoder continues the same station.

/// What the control thread shows of a live stream (ICY headers and metadata).
public struct StationInfo: Sendable, Equatable {
    public var url: String
    /// `icy-name` (MPD's `Name`).
    public var name: String?
    /// The last `StreamTitle` (MPD's `Title`, the screen's lyric line).
    public var title: String?
    /// Whether a response is being received now.
    public var connected = false
    /// Connections made after the first (after drops).
    public var reconnects = 0
    /// Which connection this is (a new one after a long pause: `StreamDecoder.pauseLimitNanoseconds`).
    public var serial: UInt64 = 0
}

/// The live streams of one pipeline (`AudioPipeline.streams`), for the control thread (their
/// `StationInfo`) and the pipeline (ending those it no longer plays).
public final class LiveStreams: Sendable {
    private let registry = PILock(Registry())

    public init() {}

    private struct Registry {
        var open: [ObjectIdentifier: (connection: StationConnection, thread: NamedThread?)] = [:]
        /// Threads whose connection ended, joined by the next call here.
        var ended: [NamedThread] = []
    }

    /// Runs `connection` on a jb-net thread of its own, which alone holds `pipe`.
    func start(_ connection: StationConnection, writingTo pipe: FileDescriptor) {
        reap()
        let id = ObjectIdentifier(connection)
        registry.withLock { r in
            // Under the lock, so the thread's end (which takes it) finds its entry.
            let thread = NamedThread(name: "jb-net") { [self] in
                connection.run(pipe)
                registry.withLock { r in
                    if let thread = r.open.removeValue(forKey: id)?.thread { r.ended.append(thread) }
                }
            }
            r.open[id] = (connection, thread)
        }
    }

    private func reap() {
        for thread in registry.withLock({ r in
            defer { r.ended = [] }
            return r.ended
        }) {
            thread.join()
        }
    }

    /// The newest open stream of `url`.
    public func info(url: String) -> StationInfo? {
        reap()
        return registry.withLock { r in
            r.open.values.map(\.connection).filter { $0.url == url }.max { $0.serial < $1.serial }
        }?.info
    }

    /// Ends every stream but those of `url` (a decoder blocked on one then reads its end).
    public func stop(except url: String?) {
        reap()
        let connections = registry.withLock { r in r.open.values.map(\.connection) }
        for connection in connections where connection.url != url { connection.stop() }
    }

    /// Ends every stream and waits for their threads (within about a second: curl's tick).
    func shutdown() {
        stop(except: nil)
        let threads = registry.withLock { r in
            defer {
                r.open = [:]
                r.ended = []
            }
            return r.open.values.compactMap(\.thread) + r.ended
        }
        for thread in threads { thread.join() }
    }
}

/// What a station's first response says it sends: its Content-Type and first audio bytes (64,
/// fewer when it ended sooner), which choose the decoder.
struct StreamStart: Sendable {
    var type: String
    var head: [UInt8]
}

/// One station's connection: the jb-net thread and the pipe's write end (the thread's only).
final class StationConnection: Sendable {
    let url: String
    let serial: UInt64
    private static let serials = PILock<UInt64>(0)
    private let stopSwitch = HTTPStop()
    private let state: PILock<State>
    private let changed = LockCondition()
    private let logger: Logger

    private struct State {
        var info: StationInfo
        /// The first response's start, or why none came (nil while waiting).
        var opened: Result<StreamStart, AudioFileError>?
    }

    /// Starts fetching `url` into `pipe`'s write end (closed when the connection ends, so the
    /// reader sees the stream's end).
    init(url: String, writingTo pipe: FileDescriptor, logger: Logger, streams: LiveStreams) {
        self.url = url
        self.logger = logger
        serial = Self.serials.withLock {
            $0 += 1
            return $0
        }
        var info = StationInfo(url: url)
        info.serial = serial
        state = PILock(State(info: info))
        streams.start(self, writingTo: pipe)
    }

    var info: StationInfo { state.withLock { $0.info } }

    /// An Ogg station's new link: its title (from jb-decode, which reads the links).
    func linkTitle(_ title: String?) {
        state.withLock { $0.info.title = title }
    }

    func stop() {
        stopSwitch.stop()
        settle(.failure(AudioFileError(path: url, reason: "stopped")))
    }

    /// Waits for the first response's audio: its Content-Type and first bytes, or why it failed.
    func awaitOpened() throws(AudioFileError) -> StreamStart {
        let result = state.withLock { s in
            while s.opened == nil { state.wait(changed, &s) }
            return s.opened!
        }
        return try result.get()
    }

    private func settle(_ result: Result<StreamStart, AudioFileError>) {
        state.withLock { if $0.opened == nil { $0.opened = result } }
        changed.broadcast()
    }

    /// Whether audio came (the decoder was given its start).
    private var hasOpened: Bool {
        state.withLock { s in
            if case .success = s.opened { true } else { false }
        }
    }

    /// How long a station that was never reached is tried before its item fails.
    static let networkWaitNanoseconds: UInt64 = 120_000_000_000

    /// jb-net: connects, streams and reconnects until stopped or refused.
    func run(_ pipe: FileDescriptor) {
        var backoff = ReconnectBackoff()
        var client: HTTPClient
        do { client = try HTTPClient() } catch {
            settle(.failure(AudioFileError(path: url, reason: error.message)))
            return
        }
        var streamURL = url
        var dropLogged = false
        let startedAt = MonotonicClock.nanoseconds()
        while !stopSwitch.isStopped {
            let connectedAt = Instant(nanoseconds: Int64(MonotonicClock.nanoseconds()))
            var delivered = false
            do {
                if StationPlaylist.isPlaylist(url: url) { streamURL = try resolvePlaylist(client) }
                delivered = try stream(streamURL, client, into: pipe)
                if !delivered, !hasOpened, !stopSwitch.isStopped {
                    throw AudioFileError(path: url, reason: "the station's response holds no audio")
                }
            } catch {
                let failure =
                    error as? AudioFileError
                    ?? AudioFileError(path: url, reason: (error as? HTTPError)?.message ?? "\(error)")
                let everOpened = hasOpened
                // Out of reach before the first response: the network may still be coming up
                // (a box that resumes a station at power-up), so wait for it, a while. Anything
                // else before it fails the decoder (the pipeline's one line), and a station
                // that answers with something else than audio is not tried again.
                let waitsForNetwork =
                    !everOpened && (error as? HTTPError)?.isUnreachable == true
                    && MonotonicClock.nanoseconds() - startedAt < Self.networkWaitNanoseconds
                guard everOpened || waitsForNetwork, !(error is AudioFileError) else {
                    settle(.failure(failure))
                    return
                }
                if !dropLogged, !stopSwitch.isStopped {
                    let next = everOpened ? "reconnecting" : "waiting for the network"
                    logger.warning("stream \(url): \(failure.reason); \(next)")
                    dropLogged = true
                }
            }
            state.withLock { $0.info.connected = false }
            if stopSwitch.isStopped { return }
            if delivered { dropLogged = false }
            let now = Instant(nanoseconds: Int64(MonotonicClock.nanoseconds()))
            let at = backoff.dropped(connectedAt: delivered ? connectedAt : nil, now: now)
            while !stopSwitch.isStopped, Instant(nanoseconds: Int64(MonotonicClock.nanoseconds())) < at {
                MonotonicClock.sleep(nanoseconds: 20_000_000)
            }
            state.withLock { $0.info.reconnects += 1 }
        }
    }

    /// The first stream URL of the station playlist at `url` (at most 64 KiB).
    private func resolvePlaylist(_ client: HTTPClient) throws -> String {
        var request = HTTPRequest(url: url)
        request.maxBodyBytes = 64 << 10
        var text: [UInt8] = []
        _ = try client.get(request, stop: stopSwitch) { bytes in
            text += bytes
            return true
        }
        do {
            return try StationPlaylist.streams(in: String(decoding: text, as: UTF8.self))[0]
        } catch {
            throw AudioFileError(path: url, reason: "station playlist: \(error)")
        }
    }

    /// One connection: writes the audio into `pipe` until it ends. Returns whether audio came.
    private func stream(_ streamURL: String, _ client: HTTPClient, into pipe: FileDescriptor) throws -> Bool {
        var request = HTTPRequest(url: streamURL)
        request.headers = ["Icy-MetaData: 1"]
        request.lowSpeedSeconds = 5
        var demuxer = ICYDemuxer(interval: nil)
        var refused: AudioFileError?
        var delivered = false
        var pipeClosed = false
        var head: [UInt8] = []
        var type = ""
        _ = try client.get(
            request, stop: stopSwitch,
            response: { response in
                type = (response.header("content-type") ?? "").lowercased()
                guard Self.isPlayed(type) else {
                    let shown = type.isEmpty ? "none" : type
                    refused = AudioFileError(
                        path: url,
                        reason: type.hasPrefix("audio/")
                            ? "Content-Type \(shown): only MP3, AAC and Ogg (Vorbis, Opus) streams are played"
                            : "not an audio stream (Content-Type: \(shown))")
                    return false
                }
                demuxer = ICYDemuxer(interval: response.header("icy-metaint").flatMap { Int($0) })
                state.withLock {
                    $0.info.connected = true
                    if let name = response.header("icy-name") { $0.info.name = name }
                }
                return true
            },
            body: { bytes in
                let blocks = demuxer.feed(bytes) { audio in
                    guard !pipeClosed, audio.count > 0 else { return }
                    // The decoder is chosen by the first bytes: they go to it before the pipe
                    // can fill.
                    if head.count < 64 {
                        head += audio.prefix(64 - head.count)
                        if head.count == 64 { settle(.success(StreamStart(type: type, head: head))) }
                    }
                    do { try pipe.writeAll(audio.baseAddress!, count: audio.count) } catch { pipeClosed = true }
                }
                delivered = true
                if let title = blocks.compactMap(\.streamTitle).last {
                    state.withLock { $0.info.title = title.isEmpty ? nil : title }
                }
                // The decoder went away (its read end closed): nothing more to fetch.
                if pipeClosed { stopSwitch.stop() }
                return !pipeClosed
            })
        if let refused { throw refused }
        if !head.isEmpty { settle(.success(StreamStart(type: type, head: head))) }
        return delivered
    }

    /// MP3, AAC (ADTS) and Ogg are decoded; other types are refused by name.
    static func isPlayed(_ type: String) -> Bool {
        [
            "audio/mpeg", "audio/mp3", "audio/x-mpeg", "application/ogg", "audio/ogg", "audio/vorbis", "audio/opus",
            "audio/aac", "audio/aacp", "audio/x-aac",
        ].contains { type.hasPrefix($0) }
    }
}

/// A live stream's decoder over the pipe its `StationConnection` fills: libmpg123, or
/// libvorbisfile or libopusfile when the first bytes are an Ogg stream's, or FFmpeg's ADTS
/// demuxer and AAC decoder when they are an ADTS header (each reads the pipe as an
/// unseekable stream with no length; a new Ogg link is a format change).
final class StreamDecoder: AudioDecoder {
    private let connection: StationConnection
    private let inner: any AudioDecoder
    /// An Ogg station's links, and the one whose title was given.
    private let links: (any OggLinks)?
    private var titledLink: UInt32?
    /// When it was last read (MonotonicClock): a pause leaves it parked, unread.
    private var lastReadNs = MonotonicClock.nanoseconds()

    /// After a pause this long a parked station is not taken up again: its pipe holds audio from
    /// before the pause (4 s of 128 kbit/s fill 64 kB) and a server drops a listener that stopped
    /// reading, so `play` connects again and goes on with the live stream. A shorter pause goes on
    /// where it stopped, nothing lost.
    static let pauseLimitNanoseconds: UInt64 = 5_000_000_000

    /// Whether `decoder` (as the pipeline parks it) is a station paused longer than the limit.
    static func pausedTooLong(_ decoder: any AudioDecoder) -> Bool {
        let stream = decoder as? StreamDecoder ?? (decoder as? ResampledDecoder)?.source as? StreamDecoder
        return stream.map { MonotonicClock.nanoseconds() - $0.lastReadNs > pauseLimitNanoseconds } ?? false
    }
    private let url: String
    /// The pipe as the inner decoder opened it (its messages name it; ours name the URL).
    private let pipePath: String

    init(url: String, logger: Logger, streams: LiveStreams) throws {
        self.url = url
        let pipe = try FileDescriptor.pipe()
        connection = StationConnection(url: url, writingTo: pipe.write, logger: logger, streams: streams)
        // Another open file of the same pipe: the inner decoder owns it; ours closes.
        pipePath = "/proc/self/fd/\(pipe.read.rawValue)"
        do {
            let start = try connection.awaitOpened()
            let head = start.head
            if Self.oggFirstPacket(head, startsWith: Array("OpusHead".utf8)) {
                inner = try OpusFileDecoder(path: pipePath)
            } else if Self.oggFirstPacket(head, startsWith: [1] + Array("vorbis".utf8)) {
                inner = try VorbisFileDecoder(path: pipePath)
            } else if start.type.contains("aac") || Self.isADTS(head) {
                inner = try MP4FileDecoder(path: pipePath)
            } else {
                inner = try MP3Decoder(path: pipePath)
            }
            links = inner as? any OggLinks
        } catch {
            connection.stop()
            throw Self.failure(error, url, pipePath)
        }
    }

    deinit { connection.stop() }

    var format: AudioFormat { inner.format }
    var lengthFrames: Int64? { nil }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        lastReadNs = MonotonicClock.nanoseconds()
        let result: DecodeResult
        do { result = try inner.read(into: buffer) } catch {
            throw Self.failure(error, url, pipePath)
        }
        // A new link (the next song): its comments are the title, as a StreamTitle would be.
        if let links, links.linkSerial != titledLink {
            titledLink = links.linkSerial
            connection.linkTitle(OggStreamTitle.of(comments: links.linkComments))
        }
        return result
    }

    /// A live stream has no position to go to: it goes on where it is.
    func seek(toFrame frame: Int64) throws {}

    /// The decoder's error, named by the station's URL rather than the pipe's path.
    private static func failure(_ error: any Error, _ url: String, _ pipePath: String) -> AudioFileError {
        if let error = error as? AudioFileError { return error }
        let text = "\(error)"
        return AudioFileError(
            path: url, reason: text.hasPrefix(pipePath + ": ") ? String(text.dropFirst(pipePath.count + 2)) : text)
    }

    /// Whether `head` starts with an ADTS frame header (AAC's sync word 0xFFF, layer 0), which
    /// no MPEG audio frame has (its layer bits are never 0).
    static func isADTS(_ head: [UInt8]) -> Bool {
        head.count > 1 && head[0] == 0xFF && head[1] & 0xF6 == 0xF0
    }

    /// Whether `head` is an Ogg page whose first packet starts with `magic` (a codec's ID header).
    static func oggFirstPacket(_ head: [UInt8], startsWith magic: [UInt8]) -> Bool {
        guard head.count > 27, head.starts(with: Array("OggS".utf8)) else { return false }
        let start = 27 + Int(head[26])
        return head.count >= start + magic.count && head[start..<start + magic.count].elementsEqual(magic)
    }
}
