/// How a CUE sheet is read (`[chapters] cue_sheets`): as tracks, as MPD lists them (a folder
/// `album.cue/` of songs), or as the chapters of its one audio file (an audiobook in one long
/// file: one song with chapters, so it keeps one remembered position and next/previous move
/// by chapter).
public enum CueSheetReading: String, Sendable, Equatable, CaseIterable {
    case tracks
    case chapters
    /// Chapters when the sheet's tracks all lie in one file longer than
    /// `[chapters] cue_chapters_minutes` (80 by default: longer than a CD holds, so an album
    /// rip stays tracks); tracks otherwise.
    case auto

    /// Whether a sheet whose tracks lie in `files` distinct audio files, the first
    /// `fileDurationMs` long, is read as chapters.
    public func readsAsChapters(files: Int, fileDurationMs: Int64?, minimumMs: Int64) -> Bool {
        switch self {
        case .tracks: return false
        case .chapters: return files == 1
        case .auto: return files == 1 && (fileDurationMs ?? 0) > minimumMs
        }
    }
}

/// The button that, held while the knob turns, scrubs (`[encoder] scrub_button`).
public enum ScrubButton: String, Sendable, Equatable, CaseIterable {
    case knobSwitch = "switch"
    case playPause = "play_pause"
    case next
    case previous
    case none

    /// The button's name in the input logic; nil for none.
    public var buttonName: String? { self == .none ? nil : rawValue }
}
