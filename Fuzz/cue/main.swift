import JukeboxCore

// A .cue sheet (any text encoding), its tracks placed at the sample rates the library scan
// uses, and whether it reads as chapters.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    guard let sheet = try? CueSheet.parse(fuzzBytes(data, size)) else { return 0 }
    for track in sheet.tracks {
        for rate in [44_100, 48_000, 96_000] {
            _ = track.startFrame(rate: rate)
            _ = track.endFrame(rate: rate)
        }
        _ = track.trackNumber
    }
    let files = Set(sheet.tracks.map(\.file)).count
    for reading in CueSheetReading.allCases {
        _ = reading.readsAsChapters(files: files, fileDurationMs: 3_600_000, minimumMs: 60_000)
    }
    return 0
}
