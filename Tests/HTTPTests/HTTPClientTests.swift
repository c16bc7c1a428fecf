import Glibc
import HTTP
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Tests/Tools/http_fixture.py on a free loopback port, one per suite run.
final class FixtureServer: Sendable {
    static let shared = FixtureServer()
    let process: DaemonProcess
    let base: String

    private init() {
        process = try! DaemonProcess(
            executable: "/usr/bin/python3", arguments: [Fixtures.path("Tests/Tools/http_fixture.py")])
        let line = process.waitForLine(matching: "port ", on: .stdout) ?? "port 0"
        base = "http://127.0.0.1:" + line.dropFirst(5)
    }

    func url(_ path: String) -> String { base + path }
}

func pattern(_ range: Range<Int>) -> [UInt8] { range.map { UInt8($0 % 251) } }

/// `client.get` collecting the body.
func fetch(_ request: HTTPRequest, client: HTTPClient? = nil) throws -> (HTTPOutcome, [UInt8]) {
    var body: [UInt8] = []
    let outcome = try (client ?? HTTPClient()).get(request) { bytes in
        body.append(contentsOf: bytes)
        return true
    }
    return (outcome, body)
}

@Suite(.serialized) struct HTTPClientTests {
    let server = FixtureServer.shared

    @Test func wholeBodyWithResponseHeaders() throws {
        let (outcome, body) = try fetch(HTTPRequest(url: server.url("/bytes/100000")))
        guard case .complete(let response) = outcome else { Issue.record("\(outcome)"); return }
        #expect(response.status == 200)
        #expect(response.header("content-length") == "100000")
        #expect(response.header("Content-Type") == "application/octet-stream")
        #expect(body == pattern(0..<100000))
    }

    @Test func extraRequestHeadersAreSent() throws {
        var request = HTTPRequest(url: server.url("/headers"))
        request.headers = ["Icy-MetaData: 1", "X-Test: ü"]
        let (_, body) = try fetch(request)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("Icy-MetaData: 1"))
        #expect(text.contains("User-Agent: jukeboxd"))
    }

    @Test func resumesAtAByteOffset() throws {
        var request = HTTPRequest(url: server.url("/bytes/50000"))
        request.resumeFrom = 12345
        let (outcome, body) = try fetch(request)
        guard case .complete(let response) = outcome else { Issue.record("\(outcome)"); return }
        #expect(response.status == 206)
        #expect(response.header("content-range") == "bytes 12345-49999/50000")
        #expect(body == pattern(12345..<50000))
    }

    @Test func aResumeAnsweredWithTheWholeBodyFails() throws {
        var request = HTTPRequest(url: server.url("/norange/50000"))
        request.resumeFrom = 100
        let error = #expect(throws: HTTPError.self) { try fetch(request) }
        #expect(error?.url == request.url)
        #expect(error?.status == 200)
        #expect(error?.message.contains("resume") == true)
    }

    @Test func followsRedirectsUpToTheLimit() throws {
        var request = HTTPRequest(url: server.url("/redirect/3"))
        let (outcome, body) = try fetch(request)
        guard case .complete(let response) = outcome else { Issue.record("\(outcome)"); return }
        #expect(response.url == server.url("/bytes/1000"))
        #expect(body == pattern(0..<1000))
        request.maxRedirects = 2
        let error = #expect(throws: HTTPError.self) { try fetch(request) }
        #expect(error?.description.hasPrefix(request.url + ": Maximum (2) redirects followed") == true)
    }

    @Test func anErrorStatusThrowsWithCurlsMessage() throws {
        let request = HTTPRequest(url: server.url("/status/404"))
        let error = #expect(throws: HTTPError.self) { try fetch(request) }
        #expect(error?.status == 404)
        #expect(error?.message.contains("404") == true)
    }

    @Test func aConnectionRefusedNamesTheURL() throws {
        let url = "http://127.0.0.1:\(freeLoopbackPort())/x"
        let error = #expect(throws: HTTPError.self) { try fetch(HTTPRequest(url: url)) }
        #expect(error?.url == url)
        #expect(error?.status == 0)
        #expect(error?.message.lowercased().contains("connect") == true)
    }

    @Test(arguments: ["/bytes/100000", "/unsized/100000"])
    func aBodyOverTheLimitFails(path: String) throws {
        var request = HTTPRequest(url: server.url(path))
        request.maxBodyBytes = 50000
        var received = 0
        let error = #expect(throws: HTTPError.self) {
            try HTTPClient().get(request) { bytes in
                received += bytes.count
                return true
            }
        }
        #expect(error?.url == request.url)
        #expect(received <= 50000)
    }

    @Test func aStalledServerTimesOut() throws {
        var request = HTTPRequest(url: server.url("/stall"))
        request.lowSpeedSeconds = 1
        let started = MonotonicClock.nanoseconds()
        let error = #expect(throws: HTTPError.self) { try fetch(request) }
        let seconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        #expect(error?.message.contains("too slow") == true, "\(String(describing: error))")
        #expect(seconds < 10)  // curl averages over a few seconds; the default is 20 s
    }

    @Test func theBodyCallbackStopsAnEndlessStream() throws {
        var received = 0
        let outcome = try HTTPClient().get(HTTPRequest(url: server.url("/endless"))) { bytes in
            received += bytes.count
            return received < 100_000
        }
        guard case .stopped(let response) = outcome else { Issue.record("\(outcome)"); return }
        #expect(response.status == 200)
        #expect(received >= 100_000)
    }

    @Test func theResponseCallbackStopsBeforeTheBody() throws {
        var seen: HTTPResponse?
        var received = 0
        let outcome = try HTTPClient().get(
            HTTPRequest(url: server.url("/bytes/1000")),
            response: {
                seen = $0; return false
            },
            body: {
                received += $0.count; return true
            })
        #expect(outcome == .stopped(seen!))
        #expect(seen?.header("content-length") == "1000")
        #expect(received == 0)
    }

    @Test func stopFromAnotherThreadEndsAStall() throws {
        let stop = HTTPStop()
        let stopper = NamedThread(name: "stopper") {
            _ = waitUntil(timeout: .seconds(1)) { false }
            stop.stop()
        }
        let started = MonotonicClock.nanoseconds()
        let outcome = try HTTPClient().get(HTTPRequest(url: server.url("/stall")), stop: stop) { _ in true }
        stopper.join()
        guard case .stopped = outcome else { Issue.record("\(outcome)"); return }
        #expect(Double(MonotonicClock.nanoseconds() - started) / 1e9 < 4)
    }

    @Test func oneClientServesRequestsOneAfterAnother() throws {
        let client = try HTTPClient()
        for size in [10, 70000, 3] {
            let (_, body) = try fetch(HTTPRequest(url: server.url("/bytes/\(size)")), client: client)
            #expect(body == pattern(0..<size))
        }
    }

    @Test func tlsIsVerifiedByDefault() throws {
        // The fixture over TLS with a self-signed certificate: refused unless asked not to verify.
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let made = try run([
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-keyout", dir.file("key.pem"), "-out", dir.file("cert.pem"),
        ])
        #expect(made.status == 0)
        let tls = try DaemonProcess(
            executable: "/usr/bin/python3",
            arguments: [
                Fixtures.path("Tests/Tools/http_fixture.py"), "--tls", dir.file("cert.pem"), dir.file("key.pem"),
            ])
        let port = try #require(tls.waitForLine(matching: "port ", on: .stdout)).dropFirst(5)
        var request = HTTPRequest(url: "https://127.0.0.1:\(port)/bytes/10")
        let error = #expect(throws: HTTPError.self) { try fetch(request) }
        #expect(error?.message.contains("certificate") == true, "\(String(describing: error))")
        request.verifyTLS = false
        let (_, body) = try fetch(request)
        #expect(body == pattern(0..<10))
    }

    /// libcurl is opened by the soname the -dev package's link names.
    @Test func sonameIsTheInstalledLibrarys() throws {
        let libdir =
            try run(["pkg-config", "--variable=libdir", "libcurl"]).stdoutText
            .split(separator: "\n").first.map(String.init) ?? ""
        let target = try run(["readlink", libdir + "/libcurl.so"]).stdoutText
        #expect(target.hasPrefix("libcurl.so.4"))
    }
}
