import Glibc
import Hummingbird
import JukeboxConfigFile
import JukeboxCore
import JukeboxWeb
import LinuxSupport
import Logging
import NIOCore
import NIOPosix

/// `jukebox-web --config FILE`: the family's web page, a process of its own beside jukeboxd
/// (docs/ARCHITECTURE.md, "The web page"). It reads the daemon's config for `[web]` and the
/// daemon's MPD listener, and speaks MPD to the daemon; the music does not depend on it.
public enum WebServer {
    /// Runs until SIGTERM or SIGINT; exits 2 on a bad command line or config.
    public static func main(arguments: [String]) async -> Never {
        var logger = Logger(label: "jukebox-web")
        logger.logLevel = .info
        let configPath: String
        switch WebArguments.parse(arguments) {
        case .success(let path): configPath = path
        case .failure(let problem):
            printError("jukebox-web: \(problem.message)\n\(WebArguments.usage())")
            exit(2)
        }
        let config: JukeboxConfig
        switch loadConfig(configPath) {
        case .success(let loaded): config = loaded
        case .failure(let problem):
            printError(problem.message)
            exit(2)
        }
        do {
            try await serve(config, configPath: configPath, logger: logger)
            exit(0)
        } catch {
            printError("jukebox-web: \(error)")
            exit(1)
        }
    }

    struct Problem: Error {
        var message: String
    }

    /// The daemon's config, checked by the same validator as `jukeboxd --check-config`.
    static func loadConfig(_ path: String) -> Result<JukeboxConfig, Problem> {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(path, limit: 1 << 20)
        } catch {
            return .failure(Problem(message: "\(path): cannot read the config file: \(error.message)"))
        }
        return ConfigValidator.helperConfig(bytes: bytes, path: path).mapError { Problem(message: $0.message) }
    }

    static func printError(_ text: String) {
        _ = try? FileDescriptor.standardError.writeAll(Array((text + "\n").utf8))
    }

    static func serve(_ config: JukeboxConfig, configPath: String, logger: Logger) async throws {
        // One event-loop thread serves the pages and the daemon connections: a family's few
        // phones need no more, and each thread costs memory.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let endpoint = MPDEndpoint(
            socket: config.network.socket, host: config.network.address, port: config.network.port,
            password: config.network.password)
        let client = MPDClient(endpoint: endpoint, group: group)
        let state = LiveState()
        var random = SystemRandomNumberGenerator()
        let token = CSRFToken(using: &random)
        // The password's hash beside the daemon's database, in the state folder the unit owns.
        let database = DaemonConfig.resolve(config.database, against: DaemonConfig.directory(of: configPath))
        let stateFolder = database.lastIndex(of: "/").map { String(database[..<$0]) } ?? "."
        let gate = LoginGate(password: PasswordFile(path: stateFolder + "/web-password"), logger: logger)
        let settings = SettingsRoutes(configPath: configPath, gate: gate, token: token)
        let routes = Routes(
            client: client, state: state, token: token, logger: logger, settings: settings,
            upload: UploadRoutes(
                musicFolder: DaemonConfig.resolve(config.musicDir, against: DaemonConfig.directory(of: configPath)),
                client: client, gate: gate, token: token),
            system: SystemRoutes(client: client, settings: settings), music: MusicRoutes(client: client, token: token))
        let app = Application(
            router: routes.router(),
            configuration: .init(address: .hostname(config.web.address, port: config.web.port), serverName: nil),
            onServerRunning: { channel in
                let address = channel.localAddress.map { "\($0.ipAddress ?? config.web.address):\($0.port ?? 0)" }
                logger.info("web page on http://\(address ?? "?")/ (jukeboxd at \(endpoint))")
            },
            eventLoopGroupProvider: .shared(group), logger: logger)
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask { await IdleLoop(client: client, state: state, logger: logger).run() }
            tasks.addTask { await LyricTicker(client: client, state: state).run() }
            try await app.runService()
            tasks.cancelAll()
        }
    }
}
