/// `next` and `previous` in a file with chapters (an audiobook): they move by chapter, and
/// leave the track only from its last chapter (next) or the start of its first (previous).
/// `[chapters] navigate = false` keeps them moving by track.
public enum ChapterNavigation {
    /// The command to run instead of `command`: a seek to a chapter's start for `next` and
    /// `previous` where a chapter lies that way; anything else as it is.
    public static func command(
        for command: Command, chapters: ChapterList?, positionMs: Int64, restartThresholdMs: Int64
    ) -> Command {
        guard let chapters, chapters.count > 1 else { return command }
        switch command {
        case .next:
            return chapters.nextStart(after: positionMs).map { .seek(.absolute(ms: $0)) } ?? command
        case .previous:
            return chapters.previousStart(before: positionMs, restartMs: restartThresholdMs).map {
                .seek(.absolute(ms: $0))
            } ?? command
        default:
            return command
        }
    }
}
