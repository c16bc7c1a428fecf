import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import Testing

/// NFC/RFID cards in a real SQLite file: assigned, placed, reassigned, forgotten, reopened.
@Suite struct TagCardStoreTests {
    typealias Place = PlayHistory.Place

    @Test func cardsAndTheirPlacesSurviveAReopen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        let book = TagCard(
            id: "04A1", content: .source(.album(artist: "Julia Donaldson", album: "Zog")), policy: .continue)
        let songs = TagCard(id: "04A2", content: .source(.artist(name: "Queen")))
        let sleep = TagCard(id: "04A3", content: .command("stop"))
        do {
            let (store, _) = try LibraryStore.open(path: path, logger: quietLogger)
            #expect(try store.tagCards().isEmpty)
            try store.assignTagCards([book, songs, sleep])
            try store.setTagCardPlace(Place(trackPath: "Zog/2.mp3", positionMs: 61_000), id: "04A1")
            try store.setTagCardPlace(Place(trackPath: "Queen/1.mp3", positionMs: 5_000), id: "04A2")
            #expect(try store.setTagCardPolicy(.start, id: "04A2"))
            #expect(try !store.setTagCardPolicy(.start, id: "FFFF"))
            #expect(try store.forgetTagCard(id: "04A3"))
            #expect(try !store.forgetTagCard(id: "04A3"))
        }
        let (store, _) = try LibraryStore.open(path: path, logger: quietLogger)
        var placedBook = book
        placedBook.place = Place(trackPath: "Zog/2.mp3", positionMs: 61_000)
        var placedSongs = songs
        placedSongs.policy = .start
        placedSongs.place = Place(trackPath: "Queen/1.mp3", positionMs: 5_000)
        #expect(try store.tagCards() == [placedBook, placedSongs])
        #expect(try store.tagCard(id: "04A1") == placedBook)
        #expect(try store.tagCard(id: "04A3") == nil)

        // The same content again (an import) keeps the place; new content forgets it.
        try store.assignTagCards([book, TagCard(id: "04A2", content: .source(.folder(path: "Kids")))])
        #expect(try store.tagCard(id: "04A1")?.place == placedBook.place)
        #expect(try store.tagCard(id: "04A2") == TagCard(id: "04A2", content: .source(.folder(path: "Kids"))))
    }

    /// A card's name and last use in a real file: set, kept by `card assign` and by a file
    /// without names (nil), set or cleared by a file with them, and read back after a reopen.
    @Test func namesAndLastUseSurviveAReopenAndAReassignment() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        let car = TagCard(id: "04A1", content: .source(.folder(path: "Cars")))
        let bus = TagCard(id: "04A2", content: .command("stop"))
        do {
            let (store, _) = try LibraryStore.open(path: path, logger: quietLogger)
            try store.assignTagCards([car, bus])
            #expect(try store.setTagCardName("yellow car", id: "04A1"))
            #expect(try !store.setTagCardName("nobody", id: "FFFF"))
            try store.setTagCardLastUsed(1_796_715_120, id: "04A1")
            try store.setTagCardLastUsed(1_796_715_120, id: "FFFF")  // unknown: nothing written
            try store.setTagCardPlace(PlayHistory.Place(trackPath: "Cars/1.mp3", positionMs: 9_000), id: "04A1")
            // `card assign` of other content: the place goes, the name and last use stay.
            try store.assignTagCards([TagCard(id: "04A1", content: .source(.folder(path: "Trucks")))])
        }
        let (store, _) = try LibraryStore.open(path: path, logger: quietLogger)
        #expect(
            try store.tagCards() == [
                TagCard(
                    id: "04A1", content: .source(.folder(path: "Trucks")), name: "yellow car", lastUsed: 1_796_715_120),
                bus,
            ])
        #expect(try store.tagCards().count == 2)
        // An import with names sets them; "" clears one; nil (an old file) keeps it.
        try store.assignTagCards([
            TagCard(id: "04A1", content: .source(.folder(path: "Trucks")), name: ""),
            TagCard(id: "04A2", content: .command("stop"), name: "red bus"),
            TagCard(id: "04A3", content: .command("pause"), name: "new"),
        ])
        #expect(try store.tagCards().map(\.name) == [nil, "red bus", "new"])
        try store.assignTagCards([TagCard(id: "04A2", content: .command("stop"))])
        #expect(try store.tagCard(id: "04A2")?.name == "red bus")
        #expect(try store.setTagCardName("", id: "04A2"))
        #expect(try store.tagCard(id: "04A2")?.name == nil)
        #expect(try store.tagCard(id: "04A1")?.lastUsed == 1_796_715_120)
    }
}
