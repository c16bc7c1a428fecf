/// The `podcast` words of every console (and `clear cache`).
public enum PodcastCommand: Sendable, Equatable {
    /// Subscribe to a feed (http or https).
    case add(url: String)
    /// Every subscription with its number, title and episodes' states.
    case list
    /// One podcast's episodes, new first (by its number in `list`).
    case episodes(podcast: Int)
    /// Unsubscribe (by number or URL); its downloaded episodes are deleted.
    case remove(String)
    /// Read every feed again now.
    case refresh
    /// Download an episode (podcast number, episode number in its list) in the background.
    case download(podcast: Int, episode: Int)
    /// Play an episode from where it was left (one not yet downloaded: once it is).
    case play(podcast: Int, episode: Int)
    /// Delete every downloaded and partial episode.
    case clearCache

    public static let helpText = """
        podcast add URL       subscribe to an RSS or Atom feed; podcast remove N|URL
        podcast list          the podcasts, numbered; podcast N: its episodes, new first
        podcast refresh       read every feed again; podcast download N E, podcast play N E
        clear cache           delete every downloaded episode
        """

    /// Parses the words after `podcast` (already split).
    public static func parse(_ arguments: [String]) -> Result<PodcastCommand, CommandError> {
        let problem = { (text: String) in
            Result<PodcastCommand, CommandError>.failure(.badArgument(command: "podcast", problem: text))
        }
        let numbers = arguments.dropFirst().map { Int($0) }
        switch (arguments.first?.lowercased(), arguments.count) {
        case ("add", 2):
            let url = arguments[1]
            let scheme = url.lowercased()
            guard scheme.hasPrefix("http://") || scheme.hasPrefix("https://") else {
                return problem("expected an http:// or https:// feed URL, found '\(url)'")
            }
            return .success(.add(url: url))
        case ("list", 1), (nil, _): return .success(.list)
        case ("remove", 2): return .success(.remove(arguments[1]))
        case ("refresh", 1): return .success(.refresh)
        case ("clear", 2) where arguments[1].lowercased() == "cache": return .success(.clearCache)
        case ("download", 3), ("play", 3):
            guard let podcast = numbers[0], let episode = numbers[1], podcast > 0, episode > 0 else {
                return problem("expected a podcast number and an episode number, e.g. 'podcast play 1 3'")
            }
            return .success(
                arguments[0].lowercased() == "play"
                    ? .play(podcast: podcast, episode: episode)
                    : .download(podcast: podcast, episode: episode))
        case (let word?, 1):
            if let podcast = Int(word), podcast > 0 { return .success(.episodes(podcast: podcast)) }
            return problem(
                "unknown podcast command '\(word)' (add, list, remove, refresh, download, play, clear cache)")
        default:
            return problem("expected add URL, list, N, remove N|URL, refresh, download N E, play N E or clear cache")
        }
    }
}
