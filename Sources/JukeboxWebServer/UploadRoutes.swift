import Glibc
import Hummingbird
import JukeboxWeb
import LinuxSupport
import NIOCore

/// `/upload`: files into the music folder, streamed to the card as they arrive (never a whole
/// file in memory), each under a temporary hidden name that is renamed when complete and
/// removed when the connection drops; then the daemon scans the folder.
struct UploadRoutes: Sendable {
    let musicFolder: String
    let client: MPDClient
    let gate: LoginGate
    let token: CSRFToken

    func add(to router: Router<BasicRequestContext>) {
        router.get("/upload") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            let free = (try? FileSystem.freeBytes(musicFolder)) ?? 0
            return Routes.page(Pages.upload(token: token, freeBytes: free))
        }
        router.post("/upload/file") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            guard token.accepts(request.headers[.init("X-CSRF-Token")!]) else {
                return Routes.text(.forbidden, "missing or wrong CSRF token")
            }
            return try await receive(request)
        }
        router.post("/upload/scan") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            let form = try await SettingsRoutes.form(request)
            guard token.accepts(form["csrf"]) else { return Routes.text(.forbidden, "missing or wrong CSRF token") }
            guard case .success(let names) = UploadRules.folder(form["folder"] ?? "") else {
                return Routes.text(.badRequest, "not a folder of the music folder")
            }
            do {
                _ = try await client.run("update " + MPDReplyReader.quoted(names.joined(separator: "/")))
            } catch let error as MPDReplyError {
                return Routes.text(.badRequest, "\(error)")
            }
            return Response(status: .noContent)
        }
    }

    /// One file: `?path=Folder/Song.mp3`, the body its bytes, `Content-Length` its size.
    func receive(_ request: Request) async throws -> Response {
        let query = FormData(request.uri.query ?? "")
        let names: [String]
        switch UploadRules.components(query["path"] ?? "") {
        case .success(let checked): names = checked
        case .failure(let problem): return Routes.text(.badRequest, problem.description)
        }
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        let free = (try? FileSystem.freeBytes(musicFolder)) ?? 0
        if let problem = UploadRules.sizeProblem(bytes: length, free: free) {
            return Routes.text(length == nil ? .lengthRequired : .contentTooLarge, problem.description)
        }
        let folder = names.dropLast().reduce(musicFolder) { "\($0)/\($1)" }
        let final = "\(folder)/\(names[names.count - 1])"
        do {
            try FileSystem.makeDirectories(folder, inside: musicFolder)
        } catch {
            return Routes.text(.badRequest, "cannot make the folder: \(error)")
        }
        if FileSystem.exists(final) { return Routes.text(.conflict, "\(names.joined(separator: "/")) exists already") }
        var random = SystemRandomNumberGenerator()
        let temporary = "\(folder)/.\(names[names.count - 1]).upload-\(RandomToken.hex(using: &random).prefix(8))"
        let file = try FileDescriptor(path: temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
        var complete = false
        defer { if !complete { _ = try? FileSystem.removeFile(temporary) } }
        var written: Int64 = 0
        for try await buffer in request.body {
            written += Int64(buffer.readableBytes)
            // A body longer than it said: refused, nothing kept.
            if written > length ?? 0 { return Routes.text(.badRequest, "more bytes than Content-Length") }
            try buffer.withUnsafeReadableBytes { bytes in
                if let base = bytes.baseAddress { try file.writeAll(base, count: bytes.count) }
            }
        }
        guard written == length else { return Routes.text(.badRequest, "the upload ended early") }
        try file.syncData()
        try FileSystem.rename(temporary, to: final)
        try FileDescriptor.syncFolder(containing: final)
        complete = true
        return Routes.text(.created, names.joined(separator: "/"))
    }
}
