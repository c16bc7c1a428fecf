import JukeboxAudio
import JukeboxCore

// Podcasts on the console and in the player: `podcast ...` and `clear cache` lines, the
// reports of jb-podcast, and episodes played as tracks of their own (negative ids), which
// keep their position as long tracks do.

extension Daemon {
    /// A `podcast` line (the words after `podcast`), or `clear cache`.
    func handlePodcastLine(_ words: [Substring]) -> String {
        switch PodcastCommand.parse(words.map(String.init)) {
        case .failure(let error): return "error: \(error.message)"
        case .success(.play(let number, let index)): return playEpisode(number, index)
        case .success(let command): return podcasts.handle(command)
        }
    }

    /// What jb-podcast finished: stored by `Podcasts`, announced on the console.
    func handlePodcastReports() {
        for line in podcasts.handleReports() { console?.announce(line) }
    }

    /// Plays an episode, downloaded or downloading (its partial file, as far as it goes),
    /// from where it was left; one not yet downloaded starts downloading.
    func playEpisode(_ number: Int, _ index: Int) -> String {
        let found: EpisodeRecord?
        do {
            found = try podcasts.episode(number, index)
        } catch {
            return "error: \(error)"
        }
        guard let record = found else { return podcasts.noSuchEpisode(number, index) }
        if record.state != .complete, record.state != .downloading {
            podcasts.queueDownload(record)
            return "OK downloading \(record.episode.title); it can be played once it has begun"
        }
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

    /// An episode file's length, from its headers (nil when they do not say).
    static let probedDuration: @Sendable (String) -> Int64? = { path in (try? MediaProbe.probe(path: path))?.durationMs
    }
}
