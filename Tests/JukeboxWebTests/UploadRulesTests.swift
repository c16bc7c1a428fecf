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

    /// Fuzz finding 6 (upload-path, docs/FUZZING.md): split and checked as characters, a `/`
    /// after a prepended mark (U+0600) or before a combining one (U+0301) was no separator, so
    /// one "name" held slashes (deeper than `maxDepth`, a hidden folder inside it), and `.`
    /// with a combining mark was not a hidden name.
    @Test func aSlashOrDotWithAMarkIsStillASlashOrADot() {
        // The two crashing inputs.
        #expect((try? UploadRules.folder("o/\u{301}0Zo").get()) == ["o", "\u{301}0Zo"])
        let found = "Kids*%00\u{0}\u{600}/Z\u{FFFD}o.g\u{0}\u{0}\u{0}-\u{0}"
        #expect((try? UploadRules.folder(found).get()) == ["Kids_%00_\u{600}", "Z\u{FFFD}o.g___-_"])
        for path in ["a\u{600}/.git\u{600}/x.mp3", ".\u{301}x.mp3", "a/.\u{301}/x.mp3", "/\u{301}etc/x.mp3"] {
            #expect(throws: UploadRules.Problem.self, "\(path)") { try UploadRules.components(path).get() }
        }
        #expect(Array(UploadRules.safeName(" \u{301}x. ").utf8) == Array("\u{301}x".utf8))
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
