import JukeboxAudio
import JukeboxCore

// Podcasts on the console and in the player: `podcast ...` and `clear cache` lines, the
// reports of jb-podcast, and episodes played as tracks of their own (`Podcasts.trackID`), which
// keep their position as long tracks do. An episode plays from its whole file: one asked for
// while it downloads plays once whole (the decoders stop at a partial file's end, which the
// player would take for the episode's end).

extension Daemon {
    /// A `podcast` line (the words after `podcast`), or `clear cache`.
    func handlePodcastLine(_ words: [Substring]) -> String {
        notePlayingEpisode()
        switch PodcastCommand.parse(words.map(String.init)) {
        case .failure(let error): return "error: \(error.message)"
        case .success(.play(let number, let index)): return playEpisode(number, index)
        case .success(let command):
            defer { refreshMenuLists() }
            return podcasts.handle(command)
        }
    }

    /// What jb-podcast finished: stored by `Podcasts`, announced on the console; an episode
    /// asked for before it was whole starts playing.
    func handlePodcastReports() {
        notePlayingEpisode()
        let (announcements, play) = podcasts.handleReports()
        if !announcements.isEmpty { refreshMenuLists() }
        for line in announcements { console?.announce(line) }
        if let play { console?.announce(playEpisode(play)) }
    }

    /// `podcast play N E`: a downloaded episode plays from where it was left; one not yet
    /// whole downloads before the others and plays once whole.
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
            podcasts.playWhenDownloaded = record.id
            podcasts.queueDownload(record, first: true)
            return "OK \(record.episode.title) plays once it is downloaded"
        }
        return playEpisode(record)
    }

    /// Plays a downloaded episode as a track of its own, from where it was left.
    func playEpisode(_ record: EpisodeRecord) -> String {
        let track = podcasts.track(record, durationMs: Self.probedDuration)
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

    /// The episode the queue is at (if it is one), which the cache never deletes.
    private func notePlayingEpisode() {
        podcasts.playing = machine.queue.currentTrack.flatMap(Podcasts.episodeID)
    }

    /// An episode file's length, from its headers (nil when they do not say).
    static let probedDuration: @Sendable (String) -> Int64? = { path in (try? MediaProbe.probe(path: path))?.durationMs
    }
}
