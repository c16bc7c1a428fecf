import Testing

@testable import JukeboxCore

/// The favourite command: its words, and what it does to the `Favourites` playlist's entries.
@Suite struct FavouritesTests {
    @Test func toggleAddsAtTheEndAndRemovesEveryCopy() {
        #expect(Favourites.apply(.toggle, path: "b.mp3", to: ["a.mp3"]) == (["a.mp3", "b.mp3"], true))
        // A client may have added a track twice: unmarking takes both.
        #expect(Favourites.apply(.toggle, path: "b.mp3", to: ["b.mp3", "a.mp3", "b.mp3"]) == (["a.mp3"], false))
        #expect(Favourites.apply(.toggle, path: "a.mp3", to: []) == (["a.mp3"], true))
    }

    @Test func addAndRemoveLeaveAListThatIsAlreadySo() {
        #expect(Favourites.apply(.add, path: "a.mp3", to: ["a.mp3"]) == (nil, true))
        #expect(Favourites.apply(.add, path: "b.mp3", to: ["a.mp3"]) == (["a.mp3", "b.mp3"], true))
        #expect(Favourites.apply(.remove, path: "b.mp3", to: ["a.mp3"]) == (nil, false))
        #expect(Favourites.apply(.remove, path: "a.mp3", to: ["a.mp3"]) == ([], false))
    }

    @Test(arguments: [
        ("favourite", Favourites.Edit.toggle), ("Favorite", .toggle), ("favourite add", .add),
        ("favourite REMOVE", .remove), ("favourite toggle", .toggle),
    ])
    func words(_ line: String, _ edit: Favourites.Edit) {
        #expect(ControlAction.parse(line) == .success(.favourite(edit)))
        #expect(ControlAction.parse(ControlAction.favourite(edit).description) == .success(.favourite(edit)))
    }

    @Test func badWords() {
        #expect(
            ControlAction.parse("favourite maybe")
                == .failure(
                    .badArgument(command: "favourite", problem: "expected add, remove, toggle or nothing (toggle)")))
        #expect(ControlAction.parseFavourite(["favourites"]) == nil)
    }
}
