import Foundation
import Glibc
import JukeboxTestSupport

/// MPD 0.23 on a private config: the server the differential tests compare jukeboxd with.
/// `directory/mpd.conf` names the music folder, `directory/playlists`, a database and a log
/// there, loopback on a free port and a null output. Stopped by `stop()` or when released.
final class ReferenceMPD {
    static let binary = "/usr/bin/mpd"
    static var isInstalled: Bool { access(binary, X_OK) == 0 }

    let process: DaemonProcess
    let port: Int
    /// Its `playlist_directory`.
    let playlists: String

    /// `output` adds lines to the null `audio_output` block, `extra` to the config's top level;
    /// `mixer` is its `mixer_type` (`software` gives it a volume, as jukeboxd has).
    init(musicDir: String, directory: String, output: String = "", extra: String = "", mixer: String = "none") throws {
        port = freeLoopbackPort()
        playlists = directory + "/playlists"
        try FileManager.default.createDirectory(atPath: playlists, withIntermediateDirectories: true)
        try """
        music_directory    "\(musicDir)"
        playlist_directory "\(playlists)"
        db_file            "\(directory)/db"
        log_file           "\(directory)/log"
        bind_to_address    "127.0.0.1"
        port               "\(port)"
        auto_update        "no"
        zeroconf_enabled   "no"
        \(extra)
        audio_output {
          type       "null"
          name       "null"
          mixer_type "\(mixer)"
          \(output)
        }

        """.write(toFile: directory + "/mpd.conf", atomically: true, encoding: .utf8)
        process = try DaemonProcess(executable: Self.binary, arguments: ["--no-daemon", directory + "/mpd.conf"])
    }

    deinit { stop() }

    func stop() {
        _ = process.kill(SIGTERM)
        _ = process.waitForExit(timeout: .seconds(5))
    }
}
