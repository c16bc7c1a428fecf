import Testing

@testable import JukeboxWeb

/// What an upload may write: names that stay in the music folder, types the box uses, sizes
/// that fit.
@Suite struct UploadRulesTests {
    @Test func pathsThatLeaveTheMusicFolderOrHideAreRefused() {
        for path in [
            "", "/etc/x.mp3", "../x.mp3", "a/../../x.mp3", "a/./x.mp3", "a//x.mp3", ".x.mp3", "a/.git/x.mp3", "a/...",
            "a/b/c/d/e/f/g/h/i/x.mp3", String(repeating: "n", count: 256) + ".mp3",
        ] {
            guard case .failure = UploadRules.components(path) else {
                Issue.record("\(path) was taken")
                continue
            }
        }
    }

    @Test func onlyAudioLyricsCoversAndCueSheets() {
        #expect((try? UploadRules.components("Kids/Song.MP3").get()) == ["Kids", "Song.MP3"])
        #expect((try? UploadRules.components("Kids/Song.lrc").get()) == ["Kids", "Song.lrc"])
        #expect((try? UploadRules.components("Kids/cover.jpg").get()) == ["Kids", "cover.jpg"])
        for path in ["Kids/run.sh", "Kids/page.html", "Kids/Song", "Kids/Song.mp3.exe"] {
            #expect(throws: UploadRules.Problem.self) { try UploadRules.components(path).get() }
        }
    }

    @Test func namesAreMadeSafeForCardsAndShells() {
        #expect((try? UploadRules.components("a\\b/x:y*?.mp3").get()) == ["a_b", "x_y__.mp3"])
        #expect((try? UploadRules.components(" Kids /Song.mp3").get()) == ["Kids", "Song.mp3"])
        #expect(UploadRules.safeName("tab\there\u{7F}") == "tab_here_")
        #expect((try? UploadRules.folder("Kids/Songs").get()) == ["Kids", "Songs"])
    }

    @Test func sizesOverTheFreeSpaceOrTheFileLimitAreRefusedBeforeWriting() {
        let free: Int64 = 1 << 30
        #expect(UploadRules.sizeProblem(bytes: 10 << 20, free: free) == nil)
        #expect(UploadRules.sizeProblem(bytes: nil, free: free) != nil)
        #expect(UploadRules.sizeProblem(bytes: free - UploadRules.reserveBytes + 1, free: free) != nil)
        #expect(UploadRules.sizeProblem(bytes: 2 << 30, free: free)?.description.contains("not enough space") == true)
        #expect(UploadRules.sizeProblem(bytes: UploadRules.maxFileBytes + 1, free: 1 << 40) != nil)
        #expect(UploadRules.sizeProblem(bytes: 1, free: 0) != nil)
    }
}
