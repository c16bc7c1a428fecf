import JukeboxCore
import MPDProtocol

// MPD protocol lines from a client on the network, one a line, through a session (command
// lists, idle, passwords, every command) against a small library and queue. The first byte
// picks the session's options: a human console, a password.
let tracks: [TrackInfo] = [
    TrackInfo(
        id: 1, path: "A/01.mp3", title: "One", artist: "Ann", album: "First", trackNumber: 1, durationMs: 100_000,
        tags: [TrackTag(.albumArtist, "Various"), TrackTag(.date, "2001-05-03"), TrackTag(.genre, "Rock")],
        format: "44100:16:2", modifiedSeconds: 1_732_449_600),
    TrackInfo(id: 2, path: "A/02.mp3", title: "Two", artist: "Ann", album: "First", trackNumber: 2, durationMs: 50_000),
    TrackInfo(id: 3, path: "B/01.mp3", title: "Three", artist: "Bob", album: "Second", durationMs: 30_000),
    TrackInfo(id: 4, path: "loose.wav", durationMs: 5_000, format: "48000:24:1"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let mode = bytes.first else { return 0 }
    var machine = PlayerMachine(
        configuration: .init(maxVolume: 100, startVolume: 40),
        queue: PlayQueue(entries: [1, 2, 3], mode: .inOrder, seed: 1))
    _ = machine.handle(.tracksDescribed(tracks), now: .zero)
    var world = MPDWorld(
        machine: machine, library: MPDLibrary(tracks: tracks), observer: MPDObserver(), now: .zero,
        host: MPDHostInfo())
    var session = MPDSession(
        options: .init(password: mode & 2 != 0 ? "secret" : nil, human: mode & 1 != 0))
    for line in fuzzLines(Array(bytes.dropFirst())) {
        guard line.utf8.count <= MPDProtocol.maximumLineBytes else { break }
        if session.handle(line: line, world: &world).close { break }
        _ = session.notify([.player, .playlist, .message])
    }
    return 0
}
