import JukeboxCore
import MPDProtocol

// An MPD request line tokenized, its arguments read as a filter expression (find, search,
// list ... `(Artist == 'x' AND (Date >= '2000'))` or the old tag/value pairs), and the
// filter matched against tracks.
let tracks: [TrackInfo] = [
    TrackInfo(
        id: 1, path: "A/01.mp3", title: "One", artist: "Ann", album: "First", trackNumber: 1, durationMs: 100_000,
        tags: [TrackTag(.albumArtist, "Various"), TrackTag(.date, "2001-05-03"), TrackTag(.genre, "Rock")],
        format: "44100:16:2", modifiedSeconds: 1_732_449_600),
    TrackInfo(id: 4, path: "loose.wav", durationMs: 5_000, format: "48000:24:1"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    guard case .success(let request) = MPDProtocol.tokenize(text) else { return 0 }
    for exact in [true, false] {
        guard let (filter, _) = try? MPDFilter.parse(request.arguments, exact: exact) else { continue }
        for track in tracks { _ = filter.matches(track) }
    }
    return 0
}
