import JukeboxCore

// How tracks and positions read in the log and on the console.

/// `m:ss.t`, e.g. `3:07.4`.
func formatTime(ms: Int64) -> String {
    let seconds = ms / 1000
    let tenths = (ms % 1000) / 100
    return "\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60).\(tenths)"
}

extension TrackInfo {
    /// `"Title" by Artist`, the file name when it has no title.
    var spoken: String {
        let title = shownTitle
        if let artist, !artist.isEmpty { return "\"\(title)\" by \(artist)" }
        return "\"\(title)\""
    }
}
