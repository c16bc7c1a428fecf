import Glibc
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// A single-file album with a CUE sheet is listed as the sheet's tracks, as MPD lists it, and
/// follows the sheet and the audio file as they change or go.
@Suite struct CueSheetScanTests {
    typealias Fixture = LibraryScannerTests.Fixture

    /// The fixture sheet, naming `whole.mp3`.
    static func sheet() throws -> String {
        String(decoding: try readWholeFile(Fixtures.path("Tests/Fixtures/cue/album.cue")), as: UTF8.self)
            .replacingOccurrences(of: "\"whole.wav\" WAVE", with: "\"whole.mp3\" MP3")
    }
    static let audio = "TAG File Title|File Artist|File Album|9|10000|Composer=Comp;Genre=Pop"

    static func album() throws -> Fixture {
        try Fixture(["Album/whole.mp3": audio, "Album/whole.cue": sheet(), "Album/other.mp3": "TAG Other"])
    }

    @Test func theSheetsTracksReplaceTheFileWithTheSheetsTagsOverTheFiles() throws {
        let f = try Self.album()
        let report = try f.scanner.scan()
        #expect(report.added == 5 && report.skipped.isEmpty, "\(report.skipped)")
        let tracks = try f.store.playableTracks()
        #expect(
            tracks.map(\.path) == [
                "Album/other.mp3", "Album/whole.cue/track0001", "Album/whole.cue/track0002",
                "Album/whole.cue/track0003",
            ])
        let whole = try #require(try f.store.track(id: 2))
        #expect(whole.path == "Album/whole.mp3")
        let two = tracks[2]
        #expect(two.title == "Two" && two.artist == "File Artist" && two.album == "The Album" && two.trackNumber == 2)
        #expect(
            two.tags == [
                TrackTag(.genre, "Rock"), TrackTag(.date, "1999"), TrackTag(.albumArtist, "The Band"),
                TrackTag(.composer, "Comp"),
            ])
        #expect(tracks[1].artist == "Singer A")
        #expect(
            two.cue
                == CueSpan(file: "Album/whole.mp3", startFrame: 154_056, endFrame: 314_580, startMs: 3493, endMs: 7133))
        #expect(tracks.dropFirst().map(\.durationMs) == [3493, 3640, 2867])
        #expect(tracks[3].cue?.endFrame == nil && tracks[3].cue?.range == "7.133-")
        #expect(two.format == "44100:16:2" && two.size == whole.size && two.mtimeNs == whole.mtimeNs)
    }

    @Test func aRescanOfWhatDidNotChangeWritesNothing() throws {
        let f = try Self.album()
        _ = try f.scanner.scan()
        let before = try f.store.playableTracks()
        let again = try f.scanner.scan()
        #expect(again.unchanged == 5 && again.added == 0 && again.updated == 0 && again.removed == 0)
        #expect(again.commits == 0)
        #expect(try f.store.playableTracks() == before)
    }

    @Test func anEditedSheetUpdatesItsTracksAndKeepsTheirIDs() throws {
        let f = try Self.album()
        _ = try f.scanner.scan()
        let ids = try f.store.playableTracks().map(\.id)
        f.add(
            "Album/whole.cue",
            try Self.sheet().replacingOccurrences(of: "\"Two\"", with: "\"Deux\"")
                .replacingOccurrences(of: "00:07:10", with: "00:08:00"))
        let report = try f.scanner.scan()
        #expect(report.updated == 2 && report.unchanged == 3, "\(report)")
        let tracks = try f.store.playableTracks()
        #expect(tracks.map(\.id) == ids)
        #expect(tracks[2].title == "Deux" && tracks[2].cue?.endFrame == 600 * 588 && tracks[3].durationMs == 2000)
    }

    @Test func theAudioFilesChangeReachesItsTracks() throws {
        let f = try Self.album()
        _ = try f.scanner.scan()
        f.add("Album/whole.mp3", "TAG File Title|New Artist|File Album|9|12000")
        let report = try f.scanner.scan()
        #expect(report.updated == 4, "\(report)")
        let tracks = try f.store.playableTracks()
        #expect(tracks[2].artist == "New Artist" && tracks[3].durationMs == 12000 - 7133)
        #expect(tracks[2].tags.contains(TrackTag(.composer, "Comp")) == false)
    }

    @Test func whenTheAudioFileGoesItsTracksGoAndTheSheetSaysWhy() throws {
        let f = try Self.album()
        _ = try f.scanner.scan()
        f.add("Album/whole.mp3", "BAD broken")
        var report = try f.scanner.scan()
        #expect(report.removed == 3, "\(report)")
        #expect(try f.store.playableTracks().map(\.path) == ["Album/other.mp3"])
        #expect(
            report.skipped.contains(
                .init(path: "Album/whole.cue", reason: "its audio file is not in the library: 'whole.mp3'")),
            "\(report.skipped)")
        f.add("Album/whole.mp3", Self.audio)
        _ = try f.scanner.scan()
        #expect(try f.store.playableTracks().count == 4)
        unlink(f.music + "/Album/whole.mp3")
        report = try f.scanner.scan()
        #expect(try report.removed == 4 && f.store.trackCount() == 1, "\(report)")
    }

    @Test func whenTheSheetGoesTheFileIsATrackAgain() throws {
        let f = try Self.album()
        _ = try f.scanner.scan()
        unlink(f.music + "/Album/whole.cue")
        let report = try f.scanner.scan()
        #expect(report.removed == 3)
        #expect(try f.store.playableTracks().map(\.path) == ["Album/other.mp3", "Album/whole.mp3"])
    }

    @Test func badSheetsAreSkippedWithTheirReason() throws {
        let f = try Fixture([
            "a.mp3": "TAG A||||5000", "binary.cue": "\u{0}\u{1}\u{2}", "empty.cue": "",
            "elsewhere.cue": "FILE \"../x.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n",
            "late.cue": "FILE \"a.mp3\" MP3\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nINDEX 01 60:00:00\n",
        ])
        let report = try f.scanner.scan()
        #expect(
            report.skipped.sorted { $0.path < $1.path } == [
                .init(path: "binary.cue", reason: "not a text file"),
                .init(path: "elsewhere.cue", reason: "its audio file is not in the library: '../x.wav'"),
                .init(path: "empty.cue", reason: "not a usable CUE sheet: no FILE line"),
            ])
        // A track that starts past the end of its file is left out; the one before plays to the end.
        let tracks = try f.store.playableTracks()
        #expect(tracks.map(\.path) == ["late.cue/track0001"])
        #expect(tracks.first?.durationMs == 5000 && tracks.first?.cue?.endFrame == nil)
    }
}
