// HTTP and HTTPS GETs through libcurl (opened on first use, see CCurl's header), for web radio
// and podcast downloads. The whole API:
//
//     let client = try HTTPClient()                 // one curl handle; one thread at a time
//     var request = HTTPRequest(url: "https://example.org/feed.mp3")
//     request.headers = ["Icy-MetaData: 1"]         // extra request headers
//     request.resumeFrom = 1_000_000                // Range: bytes=1000000- (206 expected)
//     request.maxBodyBytes = 500_000_000            // nil: unbounded (a radio stream)
//     let stop = HTTPStop()                         // stop.stop() from any thread ends it
//     let outcome = try client.get(request, stop: stop,
//         response: { response in response.header("content-type") != nil },  // false: stop
//         body: { bytes in write(bytes); return true })                       // false: stop
//     // outcome: .complete(response) or .stopped(response); failures throw HTTPError
//
// Defaults (HTTPRequest's): connect within 10 s, fail when under 1 byte/s for 20 s (a stalled
// server), at most 5 redirects (http and https only), TLS peer and host verified. A status of
// 400 or more is an error. `response` sees the final response's status and headers (after
// redirects) before its first body byte. A resume the server answers with the whole body
// (200, no Content-Range) fails with curl's "cannot resume" error instead of appending it.
// Every HTTPError names the URL and carries curl's message.
import CCurl
import Glibc
import Synchronization

/// What to fetch and the bounds on it.
public struct HTTPRequest: Sendable {
    public var url: String
    /// Extra request headers, as `Name: value` lines.
    public var headers: [String] = []
    public var userAgent = "jukeboxd"
    public var connectTimeoutMilliseconds = 10_000
    /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedSeconds` fails.
    public var lowSpeedBytesPerSecond = 1
    public var lowSpeedSeconds = 20
    /// A longer body fails (at once when Content-Length announces it, else when it gets there).
    public var maxBodyBytes: Int64?
    public var maxRedirects = 5
    public var verifyTLS = true
    /// Asks for the body from this byte on (a Range request); 0 asks for all of it.
    public var resumeFrom: Int64 = 0

    public init(url: String) { self.url = url }
}

/// A response's status line and headers.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// In the order received, names as sent.
    public var headers: [(name: String, value: String)]
    /// The URL after redirects.
    public var url: String

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.url == b.url && a.headers.elementsEqual(b.headers) { $0 == $1 }
    }
}

public enum HTTPOutcome: Sendable, Equatable {
    /// The whole body was delivered.
    case complete(HTTPResponse)
    /// A callback or `HTTPStop` ended it early.
    case stopped(HTTPResponse)
}

/// Why a transfer failed: the URL and curl's message (or the body limit), with the response's
/// status when one came.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var url: String
    public var message: String
    /// 0 when no response came.
    public var status: Int

    public init(url: String, message: String, status: Int = 0) {
        self.url = url
        self.message = message
        self.status = status
    }

    public var description: String { "\(url): \(message)" }
}

/// Ends a transfer from another thread (within about a second when no byte arrives).
public final class HTTPStop: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func stop() { flag.store(true, ordering: .releasing) }
    public var isStopped: Bool { flag.load(ordering: .acquiring) }
}

/// One libcurl easy handle (it keeps connections open for the next request to the same host).
/// Owned and used by one thread at a time.
public final class HTTPClient {
    private let handle: OpaquePointer

    /// Loads libcurl on the first call in the process.
    public init() throws(HTTPError) {
        if let failure = jb_curl_load() {
            throw HTTPError(url: "", message: "libcurl: " + String(cString: failure))
        }
        guard let handle = jb_curl_new() else { throw HTTPError(url: "", message: "libcurl: curl_easy_init failed") }
        self.handle = handle
    }

    deinit { jb_curl_free(handle) }

    public func get(
        _ request: HTTPRequest, stop: HTTPStop? = nil, response: (HTTPResponse) -> Bool = { _ in true },
        body: (UnsafeRawBufferPointer) -> Bool
    ) throws(HTTPError) -> HTTPOutcome {
        let result = withoutActuallyEscaping(response) { response in
            withoutActuallyEscaping(body) { body in
                let transfer = Transfer(handle, request, stop: stop, response: response, body: body)
                let (code, status, message) = perform(request, transfer)
                let final = transfer.final ?? HTTPResponse(status: status, headers: transfer.headers, url: transfer.url)
                if let failure = transfer.failure {
                    return Result<HTTPOutcome, HTTPError>.failure(
                        HTTPError(url: request.url, message: failure, status: status))
                }
                if transfer.stopped { return .success(.stopped(final)) }
                if code != 0 { return .failure(HTTPError(url: request.url, message: message, status: status)) }
                return .success(.complete(final))
            }
        }
        return try result.get()
    }

    private func perform(_ request: HTTPRequest, _ transfer: Transfer) -> (code: Int32, status: Int, message: String) {
        var status = 0
        var message = [CChar](repeating: 0, count: 512)
        let headerLines = request.headers.map { strdup($0) }
        defer { headerLines.forEach { free($0) } }
        let code = request.url.withCString { url in
            request.userAgent.withCString { agent in
                headerLines.map { UnsafePointer($0) }.withUnsafeBufferPointer { lines in
                    var c = jb_curl_request(
                        url: url, user_agent: agent, headers: lines.baseAddress, header_count: Int32(lines.count),
                        connect_timeout_ms: request.connectTimeoutMilliseconds,
                        low_speed_bytes: request.lowSpeedBytesPerSecond, low_speed_seconds: request.lowSpeedSeconds,
                        max_body_bytes: request.maxBodyBytes ?? 0, max_redirects: request.maxRedirects,
                        verify_tls: request.verifyTLS ? 1 : 0, resume_from: request.resumeFrom)
                    let context = Unmanaged.passUnretained(transfer).toOpaque()
                    return jb_curl_get(
                        handle, &c,
                        { context, data, length in Transfer.of(context).header(data, length) },
                        { context, data, length in Transfer.of(context).body(data, length) },
                        { context in Transfer.of(context).tick() },
                        context, &status, &message, message.count)
                }
            }
        }
        let text = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return (code, status, String(decoding: text, as: UTF8.self))
    }
}

/// One transfer's state, seen by the C callbacks.
private final class Transfer {
    let handle: OpaquePointer
    let request: HTTPRequest
    let stopSwitch: HTTPStop?
    let response: (HTTPResponse) -> Bool
    let body: (UnsafeRawBufferPointer) -> Bool
    /// The headers of the response being received (reset at each status line).
    var headers: [(name: String, value: String)] = []
    var status = 0
    /// The response handed to `response`, at the first body byte.
    var final: HTTPResponse?
    var received: Int64 = 0
    var stopped = false
    var failure: String?

    init(
        _ handle: OpaquePointer, _ request: HTTPRequest, stop: HTTPStop?, response: @escaping (HTTPResponse) -> Bool,
        body: @escaping (UnsafeRawBufferPointer) -> Bool
    ) {
        self.handle = handle
        self.request = request
        self.stopSwitch = stop
        self.response = response
        self.body = body
    }

    /// The URL after redirects so far.
    var url: String { jb_curl_effective_url(handle).map { String(cString: $0) } ?? request.url }

    static func of(_ context: UnsafeMutableRawPointer?) -> Transfer {
        Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    }

    func header(_ data: UnsafePointer<CChar>?, _ length: Int) -> Int {
        guard let data else { return length }
        var bytes = UnsafeRawBufferPointer(start: data, count: length)[...]
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") || line.hasPrefix("ICY ") {
            headers = []
            status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        } else if let colon = line.firstIndex(of: ":") {
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append((String(line[..<colon]), String(value)))
        }
        return length
    }

    func body(_ data: UnsafePointer<CChar>?, _ length: Int) -> Int {
        if final == nil {
            let first = HTTPResponse(status: status, headers: headers, url: url)
            final = first
            guard response(first) else { return halt() }
        }
        received += Int64(length)
        if let limit = request.maxBodyBytes, received > limit {
            failure = "body larger than \(limit) bytes"
            return 0
        }
        guard body(UnsafeRawBufferPointer(start: data, count: length)) else { return halt() }
        return stopSwitch?.isStopped == true ? halt() : length
    }

    func tick() -> Int32 {
        guard stopSwitch?.isStopped == true else { return 0 }
        stopped = true
        return 1
    }

    private func halt() -> Int {
        stopped = true
        return 0
    }
}
