// swift-tools-version: 6.2
import PackageDescription

// Layers (dependencies point inward only; each target lists every module it imports):
//   C* system libraries  <-  wrappers (LinuxSupport, ALSA, MPG123, SQLite, GPIO, FLAC, Vorbis, Opus, FFmpeg)
//   pure Swift, the standard library only:  TOML  <-  JukeboxCore  <-  MPDProtocol
//     (JukeboxCore has a folder per subsystem: Player, Resume, Config, Input, Lyrics, Screen, Playlists)
//   adapters (JukeboxAudio, JukeboxStore, JukeboxDisplay, JukeboxDevices)  ->  wrappers + the pure core
//   JukeboxDaemon (wiring, control loop)  ->  everything;  jukeboxd = main.swift only
// See docs/ARCHITECTURE.md for the graph.
let package = Package(
    name: "Jukebox",
    products: [
        .executable(name: "jukeboxd", targets: ["jukeboxd"]),
        .executable(name: "jukebox-bench", targets: ["jukebox-bench"]),
        .executable(name: "jukebox-web", targets: ["jukebox-web"]),
        .executable(name: "jukebox-mqtt", targets: ["jukebox-mqtt"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Property-based tests of the pure state machines (the hermetic tier only).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // jukebox-web's HTTP server only (jukeboxd links neither it nor SwiftNIO). No traits:
        // neither full Foundation nor swift-configuration is needed, and both cost memory.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        // MARK: C libraries (Debian -dev packages, found through pkg-config)
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CMPG123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libcrypt (libxcrypt): the web page's password hash, yescrypt as /etc/shadow's.
        .systemLibrary(name: "CCrypt", pkgConfig: "libcrypt", providers: [.apt(["libcrypt-dev"])]),
        .target(name: "CLinuxShims"),
        // jukebox-mqtt's MQTT client (jukeboxd does not link it).
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // The decoder libraries are not linked but opened on first use (dlopen), so a box that
        // plays only MP3 maps none of them: their headers only (no pkgConfig, which would link
        // them), and CLazyLibraries defines the functions the wrappers call. opusfile.h
        // includes <opus_multistream.h> from Debian's /usr/include/opus. See docs/ARCHITECTURE.md.
        .systemLibrary(name: "CFLAC", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CVorbis", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "COpus", providers: [.apt(["libopusfile-dev"])]),
        .systemLibrary(name: "CSoxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CSonic", providers: [.apt(["libsonic-dev"])]),
        .systemLibrary(name: "CESpeak", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CXML2", providers: [.apt(["libxml2-dev"])]),
        .target(
            name: "CLazyLibraries", cSettings: [.unsafeFlags(["-I/usr/include/opus", "-I/usr/include/libxml2"])]),
        .target(name: "COggHeaders", dependencies: ["CLazyLibraries"]),
        // FFmpeg's headers only (libavformat-dev, libavcodec-dev, libavutil-dev): CLazyLibraries
        // opens the libraries on first use, never linked (see include/mp4_audio.h); the minimal
        // build's from Board/build-ffmpeg.sh's cache in the checkout the binary lies in, when it
        // is there (found from the binary's place: no build path in it).
        .target(name: "CFFmpeg", dependencies: ["CLazyLibraries"], linkerSettings: [.linkedLibrary("m")]),
        // libcurl's headers only (libcurl4-openssl-dev): CLazyLibraries opens it on the first transfer.
        .target(name: "CCurl", dependencies: ["CLazyLibraries"]),

        // MARK: thin wrappers, one per C library
        .target(name: "LinuxSupport", dependencies: ["CLinuxShims"]),
        .target(name: "ALSA", dependencies: ["CALSA", "LinuxSupport"]),
        .target(name: "MPG123", dependencies: ["CMPG123", "LinuxSupport"]),
        .target(name: "SQLite", dependencies: ["CSQLite", "LinuxSupport"]),
        .target(name: "GPIO", dependencies: ["CGPIOD", "LinuxSupport"]),
        .target(name: "Soxr", dependencies: ["CSoxr", "CLazyLibraries"]),
        .target(name: "Sonic", dependencies: ["CSonic", "CLazyLibraries"]),
        // espeak-ng for spoken announcements, opened on first use (CLazyLibraries), and only in
        // the speech helper process (`jukeboxd --speech-helper`).
        .target(name: "Speech", dependencies: ["CESpeak", "CLazyLibraries"]),
        .target(name: "FLAC", dependencies: ["CFLAC", "CLazyLibraries", "LinuxSupport"]),
        .target(name: "Ogg", dependencies: ["COggHeaders", "LinuxSupport"]),
        .target(name: "Vorbis", dependencies: ["CVorbis", "CLazyLibraries", "COggHeaders", "Ogg"]),
        .target(
            name: "Opus", dependencies: ["COpus", "CLazyLibraries", "COggHeaders", "Ogg"],
            swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/opus"])]),
        .target(name: "FFmpeg", dependencies: ["CFFmpeg", "CLazyLibraries"]),
        // libxml2's reader for podcast feeds, opened on first use (CLazyLibraries).
        .target(
            name: "XML", dependencies: ["CXML2", "CLazyLibraries"],
            swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]),
        .target(name: "HTTP", dependencies: ["CCurl"]),
        .target(name: "MQTT", dependencies: ["CMosquitto"]),

        // MARK: the pure core
        .target(name: "TOML"),
        .target(name: "JukeboxCore", dependencies: ["TOML"]),
        .target(name: "MPDProtocol", dependencies: ["JukeboxCore"]),
        // The web page's pure parts: HTML, MPD replies, forms, CSRF (docs/ARCHITECTURE.md).
        .target(name: "JukeboxWeb", dependencies: ["JukeboxCore", "MPDProtocol", "TOML"]),
        // Home Assistant's MQTT discovery: entities, topics, commands, reconnect backoff.
        .target(name: "HomeAssistant", dependencies: ["JukeboxCore", "JukeboxWeb"]),

        // MARK: adapters
        .target(
            name: "JukeboxAudio",
            dependencies: [
                "JukeboxCore", "LinuxSupport", "ALSA", "MPG123", "Soxr", "Sonic", "FLAC", "Vorbis", "Opus", "FFmpeg",
                "HTTP",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "JukeboxStore",
            dependencies: [
                "JukeboxCore", "LinuxSupport", "SQLite",
                .product(name: "Logging", package: "swift-log"),
            ]),

        .target(
            name: "JukeboxDisplay",
            dependencies: [
                "JukeboxCore", "LinuxSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Podcasts: feeds read with libxml2, episodes downloaded on jb-podcast.
        .target(
            name: "JukeboxPodcasts",
            dependencies: [
                "JukeboxCore", "XML", "HTTP", "LinuxSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),

        .target(
            name: "JukeboxDevices",
            dependencies: [
                "JukeboxCore", "MPDProtocol", "LinuxSupport", "GPIO",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The web process's HTTP server (Hummingbird) and its MPD client (SwiftNIO).
        .target(
            name: "JukeboxWebServer",
            dependencies: [
                "JukeboxWeb", "JukeboxCore", "JukeboxConfigFile", "TOML", "LinuxSupport", "CCrypt",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The daemon's config file read, parsed, validated and its paths resolved: jukeboxd and
        // jukebox-web read the same file the same way.
        .target(name: "JukeboxConfigFile", dependencies: ["JukeboxCore", "TOML", "LinuxSupport"]),

        // The Home Assistant bridge's process: the daemon's MPD socket and the broker in one poll loop.
        .target(
            name: "JukeboxMQTT",
            dependencies: ["HomeAssistant", "JukeboxWeb", "JukeboxCore", "MQTT", "LinuxSupport"]),

        // MARK: wiring and executables
        .target(
            name: "JukeboxDaemon",
            dependencies: [
                "TOML", "JukeboxCore", "MPDProtocol", "JukeboxAudio", "JukeboxStore", "JukeboxDisplay",
                "JukeboxDevices", "JukeboxPodcasts", "JukeboxConfigFile", "LinuxSupport", "Speech",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(name: "jukeboxd", dependencies: ["JukeboxDaemon"]),
        .executableTarget(name: "jukebox-web", dependencies: ["JukeboxWebServer"]),
        .executableTarget(name: "jukebox-mqtt", dependencies: ["JukeboxMQTT"]),
        .executableTarget(
            name: "jukebox-bench",
            dependencies: [
                "JukeboxTestSupport", "LinuxSupport", "JukeboxCore", "JukeboxDisplay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: tests
        .target(name: "JukeboxTestSupport", dependencies: ["JukeboxCore", "LinuxSupport"]),
        .testTarget(name: "TOMLTests", dependencies: ["TOML", "JukeboxCore"]),
        .testTarget(
            name: "JukeboxCoreTests",
            dependencies: ["JukeboxCore", "TOML", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "MPDProtocolTests", dependencies: ["MPDProtocol", "JukeboxCore"]),
        .testTarget(name: "JukeboxWebTests", dependencies: ["JukeboxWeb", "JukeboxCore", "TOML"]),
        .testTarget(name: "HomeAssistantTests", dependencies: ["HomeAssistant", "JukeboxCore", "JukeboxWeb"]),
        .testTarget(name: "LinuxSupportTests", dependencies: ["LinuxSupport", "JukeboxTestSupport"]),
        .testTarget(name: "GPIOTests", dependencies: ["GPIO", "LinuxSupport"]),
        .testTarget(
            name: "JukeboxAudioTests",
            dependencies: ["JukeboxAudio", "JukeboxCore", "ALSA", "MPG123", "LinuxSupport", "JukeboxTestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "LinuxSupport", "JukeboxTestSupport"]),
        .testTarget(
            name: "FormatWrapperTests",
            dependencies: ["FLAC", "Vorbis", "Opus", "FFmpeg", "CLazyLibraries", "JukeboxTestSupport"]),
        .testTarget(
            name: "JukeboxPodcastsTests",
            dependencies: ["JukeboxPodcasts", "JukeboxCore", "XML", "CLazyLibraries", "JukeboxTestSupport"]),
        .testTarget(
            name: "JukeboxStoreTests",
            dependencies: [
                "JukeboxStore", "JukeboxCore", "SQLite", "LinuxSupport", "JukeboxTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "JukeboxDisplayTests",
            dependencies: ["JukeboxDisplay", "JukeboxCore", "LinuxSupport", "JukeboxTestSupport"],
            exclude: ["Snapshots"]),
        .testTarget(
            name: "JukeboxDevicesTests",
            dependencies: [
                "JukeboxDevices", "JukeboxCore", "LinuxSupport", "JukeboxTestSupport", "MPDProtocol",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "JukeboxDaemonTests",
            dependencies: [
                "JukeboxDaemon", "JukeboxConfigFile", "JukeboxCore", "JukeboxStore", "LinuxSupport",
                "JukeboxTestSupport", "SQLite",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Boots the virtual board (qemu, Tests/Tools/vboard): real drivers, see docs/VIRTUAL-BOARD.md.
        .testTarget(
            name: "VirtualBoardTests",
            dependencies: ["JukeboxTestSupport", "LinuxSupport", "JukeboxDisplay", "JukeboxCore"]),
    ],
    swiftLanguageModes: [.v6]
)

// Warnings are errors in every target of this package (SwiftPM does not apply this to the
// dependencies, so a new warning in swift-log or swift-argument-parser cannot break the build).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
