import JukeboxCore
import Testing

@Suite struct SharedTrackStringsTests {
    /// Where a string's bytes live (nil for one of up to 15 bytes, kept in the value).
    static func storage(_ text: String) -> UnsafeRawPointer? {
        var text = text
        guard text.utf8.count > 15 else { return nil }
        return text.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    /// Each value as if read from its own row: a new allocation.
    static func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }

    static func track(_ id: TrackID, album: String, artist: String, tags: [TrackTag]) -> TrackInfo {
        TrackInfo(
            id: id, path: "Music/\(album)/\(id) song.flac", title: "Song \(id)", artist: fresh(artist),
            album: fresh(album), trackNumber: Int(id), durationMs: 1000,
            tags: tags.map { TrackTag($0.name, fresh($0.value)) }, format: "44100:16:2")
    }

    @Test func tracksOfOneAlbumShareItsNameArtistAndTagList() {
        var shared = SharedTrackStrings()
        let tags = [TrackTag(.albumArtist, "The Silent Engines Orchestra"), TrackTag(.genre, "Progressive Rock")]
        let album = "Live at the Royal Albert Hall"
        let first = shared.shared(Self.track(1, album: album, artist: "The Silent Engines", tags: tags))
        let second = shared.shared(Self.track(2, album: album, artist: "The Silent Engines", tags: tags))
        #expect(Self.storage(first.album!) != nil)
        #expect(Self.storage(first.album!) == Self.storage(second.album!))
        #expect(Self.storage(first.artist!) == Self.storage(second.artist!))
        #expect(Self.storage(first.tags[0].value) == Self.storage(second.tags[0].value))
        first.tags.withUnsafeBufferPointer { a in
            second.tags.withUnsafeBufferPointer { b in #expect(a.baseAddress == b.baseAddress) }
        }
        // Nothing else changes.
        #expect(first == Self.track(1, album: album, artist: "The Silent Engines", tags: tags))
        #expect(second.path == "Music/\(album)/2 song.flac")
    }

    @Test func aDecomposedNameStaysDecomposed() {
        var shared = SharedTrackStrings()
        let composed = "Beyonc\u{E9} Knowles-Carter"
        let decomposed = "Beyonce\u{301} Knowles-Carter"
        #expect(composed == decomposed)  // Swift's `==`: canonically equivalent
        let a = shared.shared(Self.fresh(composed))
        let b = shared.shared(Self.fresh(decomposed))
        #expect(Array(a.utf8) == Array(composed.utf8))
        #expect(Array(b.utf8) == Array(decomposed.utf8))
        let tagsA = shared.shared([TrackTag(.composer, composed)])
        let tagsB = shared.shared([TrackTag(.composer, decomposed)])
        #expect(Array(tagsA[0].value.utf8) == Array(composed.utf8))
        #expect(Array(tagsB[0].value.utf8) == Array(decomposed.utf8))
    }

    @Test func tagListsDifferingInNameOrOrderStayApart() {
        var shared = SharedTrackStrings()
        let value = "Ludwig van Beethoven (1770-1827)"
        let composer = shared.shared([TrackTag(.composer, value)])
        let performer = shared.shared([TrackTag(.performer, value)])
        #expect(composer == [TrackTag(.composer, value)])
        #expect(performer == [TrackTag(.performer, value)])
        let ordered = [TrackTag(.genre, "Classical"), TrackTag(.date, "1999")]
        #expect(shared.shared(ordered) == ordered)
        #expect(shared.shared(Array(ordered.reversed())) == Array(ordered.reversed()))
        #expect(shared.shared([]) == [])
        #expect(shared.shared(nil as String?) == nil)
        #expect(shared.shared("日本語のアルバム名") == "日本語のアルバム名")
    }
}

@Suite struct TrackInfoValueTests {
    static let track = TrackInfo(
        id: 7, path: "a/07 Song.mp3", title: "Song", artist: "Artist", album: "Album", trackNumber: 7,
        durationMs: 1234, lyricPath: "a/07 Song.lrc", tags: [TrackTag(.genre, "Rock")], format: "44100:16:2",
        modifiedSeconds: 99, cue: CueSpan(file: "a/cd.flac", startFrame: 0, endFrame: 10, startMs: 0, endMs: 1),
        chapters: nil)

    /// The fields live in one shared object: changing a copy leaves the original alone.
    @Test func aChangedCopyLeavesTheOriginal() {
        var copy = Self.track
        copy.title = "Other"
        copy.tags.append(TrackTag(.date, "2001"))
        copy.cue = nil
        #expect(Self.track.title == "Song")
        #expect(Self.track.tags == [TrackTag(.genre, "Rock")])
        #expect(Self.track.cue?.file == "a/cd.flac")
        #expect(copy.title == "Other")
        #expect(copy.tags.count == 2)
        #expect(copy != Self.track)
    }

    /// Equal fields are equal tracks with equal hashes, whichever object holds them.
    @Test func equalityAndHashFollowTheFields() {
        var rebuilt = Self.track
        rebuilt.title = "Other"
        rebuilt.title = "Song"
        #expect(rebuilt == Self.track)
        #expect(rebuilt.hashValue == Self.track.hashValue)
        #expect(Set([rebuilt, Self.track]).count == 1)
        var moved = Self.track
        moved.id = 8
        #expect(moved != Self.track)
        #expect(moved.path == Self.track.path)
    }
}
