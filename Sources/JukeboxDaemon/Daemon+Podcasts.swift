import JukeboxAudio
import JukeboxCore
import MPDProtocol

// Podcasts on the console and in the player: `podcast ...` and `clear cache` lines, the
// reports of jb-podcast, and episodes played as tracks of their own (`Podcasts.trackID`), which
// keep their position as long tracks do. One asked for while it downloads plays at once from its
// partial file (`GrowingFile`: the decoder waits at its end while the download goes on, and the
// screen and `status` say it is buffering).

extension Daemon {
    /// What jb-podcast finished: stored by `Podcasts`, announced on the console.
    func handlePodcastReports() {
        notePlayingEpisode()
        let announcements = podcasts.handleReports()
        if !announcements.isEmpty { refreshMenuLists() }
        for line in announcements { console?.announce(line) }
        // The one that played while it downloaded: its length is the whole file's now.
        if let id = podcasts.becameWhole, let record = try? podcasts.record(id) {
            podcasts.becameWhole = nil
            let track = podcasts.track(record, durationMs: Self.probedDuration)
            library[track.id] = track
            perform(machine.handle(.tracksDescribed([track]), now: Instant.now))
        }
    }

    /// `podcast play N E`: a downloaded episode plays from where it was left; one not yet
    /// whole downloads before the others and plays while it downloads.
    func playEpisode(_ number: Int, _ index: Int) -> String {
        let found: EpisodeRecord?
        do {
            found = try podcasts.episode(number, index)
        } catch {
            return "error: \(error)"
        }
        guard let record = found else { return podcasts.noSuchEpisode(number, index) }
        return play(record)
    }

    /// The menu's choice of an episode (by its row).
    func playEpisode(id: Int64) -> String {
        do {
            guard let record = try podcasts.record(id) else { return "error: that episode is gone" }
            return play(record)
        } catch {
            return "error: \(error)"
        }
    }

    private func play(_ record: EpisodeRecord) -> String {
        guard record.state == .complete else {
            guard podcasts.queueDownload(record, first: true) else {
                return "error: \(record.episode.title) does not fit in the cache"
            }
            let path = podcasts.path(of: record)
            pipeline.growingFiles.add(GrowingFile(path: path, partialPath: path + ".part"))
            return playEpisode(record) + " while it downloads"
        }
        return playEpisode(record)
    }

    /// Plays a downloaded episode as a track of its own, from where it was left.
    func playEpisode(_ record: EpisodeRecord) -> String {
        // A partial file's headers may tell the whole length (an MP3's Xing frame).
        let track = podcasts.track(record) { path in
            Self.probedDuration(record.state == .complete ? path : path + ".part")
        }
        library[track.id] = track
        podcasts.playing = record.id
        let now = Instant.now
        perform(machine.handle(.tracksDescribed([track]), now: now))
        recordHistory(.reached(currentPlace))
        perform(machine.handle(.command(.editQueue(.clear)), now: now))
        perform(machine.handle(.command(.editQueue(.add([track.id], at: nil))), now: now))
        perform(machine.handle(.command(.play(index: 0)), now: now))
        logger.info("playing podcast episode \(record.episode.title)")
        return "OK playing \(record.episode.title)"
    }

    /// `status`'s line while an episode waits for its download.
    var bufferingStatusLine: String? {
        guard let path = currentTrackInfo?.path, pipeline.growingFiles.file(path: path)?.isWaiting == true else {
            return nil
        }
        return "buffering: waiting for the download"
    }

    /// The episode the queue is at (if it is one), which the cache never deletes.
    func notePlayingEpisode() {
        podcasts.playing = machine.queue.currentTrack.flatMap(Podcasts.episodeID)
    }

    /// An episode file's length, from its headers (nil when they do not say).
    static let probedDuration: @Sendable (String) -> Int64? = { path in (try? MediaProbe.probe(path: path))?.durationMs
    }
}

/// The podcasts as the `podcast` command manages them on every front end.
struct PodcastShelf: MPDPodcastShelf {
    let podcasts: Podcasts

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run(_ command: PodcastCommand) throws -> [String] {
        let reply = podcasts.handle(command)
        if reply.hasPrefix("error: ") { throw Problem(description: String(reply.dropFirst("error: ".count))) }
        return reply.split(separator: "\n").map(String.init)
    }
}
