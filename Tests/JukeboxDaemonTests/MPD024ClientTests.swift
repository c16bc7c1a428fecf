import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// A python-mpd2 client (Debian's python3-mpd) speaking MPD 0.24 to the real daemon: the
/// relative queue positions myMPD turns on when the greeting says 0.24 (`addid URI +0`,
/// `move … +1`, `searchadd … position`, `load … 0: +0`), and the 0.24 commands
/// python-mpd2 does not know yet, added with `add_command` as a client would, with the
/// daemon's SQLite stickers behind `sticker inc`/`dec` and `sticker find ... sort`.
@Suite(.serialized) struct MPD024ClientTests {
    @Test(.enabled(if: MPDDaemonTests.hasPythonMPD)) func relativePositionsAnd024Commands() throws {
        let (harness, port) = try MPDDaemonTests.start()
        defer { MPDDaemonTests.stop(harness) }
        try MPDDaemonTests.expectPythonPasses(Self.script, harness, port: port)
    }

    static let script = """
        import sys
        import mpd

        for name, parser in [("protocol", mpd.MPDClient._parse_list),
                             ("searchcount", mpd.MPDClient._parse_object),
                             ("searchplaylist", mpd.MPDClient._parse_songs),
                             ("sticker inc", mpd.MPDClient._parse_nothing),
                             ("sticker dec", mpd.MPDClient._parse_nothing)]:
            mpd.MPDClient.add_command(name, parser)

        M, C, N = "01 Morning Light.mp3", "02 Cafe au Lait.mp3", "03 Night Drive.mp3"
        c = mpd.MPDClient()
        c.timeout = 10
        c.connect("127.0.0.1", int(sys.argv[1]))
        assert c.mpd_version == "0.24.0", c.mpd_version
        files = lambda: [s["file"] for s in c.playlistinfo()]
        current = lambda: int(c.status()["song"])

        c.clear()
        c.add(M)
        c.add(N)
        c.play(0)
        new = c.addid(C, "+0")                      # right after the current song
        assert files() == [M, C, N], files()
        assert c.playlistid(new)[0]["pos"] == "1"
        c.addid(N, "-0")                            # right before it: the current song moves on
        assert files() == [N, M, C, N] and current() == 1, (files(), c.status())
        c.move(0, "+1")                             # the second place after the current song
        assert files() == [M, C, N, N] and current() == 0, (files(), c.status())
        c.move(3, "-0")                             # just before the current song
        assert files() == [N, M, C, N] and current() == 1, (files(), c.status())
        c.searchadd("title", "LAIT", "position", "+0")
        assert files() == [N, M, C, C, N], files()
        c.findadd("title", "Night Drive", "position", "-1")
        assert files() == [N, N, M, C, C, N] and current() == 2, files()
        c.add(M, "+1")
        assert files() == [N, N, M, C, M, C, N], files()
        try:
            c.move(2, "+0")
            raise AssertionError("moved the current song relative to itself")
        except mpd.CommandError as e:
            assert "Cannot move current song relative to itself" in str(e), e

        # Stored playlists: save modes, ranges, searchplaylist with positions, load at +0.
        c.save("mix")
        c.delete("0:5")
        c.save("mix", "append")
        assert c.listplaylist("mix", "5:") == [C, N, C, N], c.listplaylist("mix", "5:")
        assert [s["file"] for s in c.listplaylistinfo("mix", "0:2")] == [N, N]
        hits = c.searchplaylist("mix", "(Title contains 'lait')")
        assert [h["pos"] for h in hits] == ["3", "5", "7"], hits
        assert [h["pos"] for h in c.searchplaylist("mix", "(Title contains 'lait')", "window", "1:2")] == ["5"]
        c.save("mix", "replace")
        assert c.listplaylist("mix") == [C, N]
        c.play(0)
        c.load("mix", "0:", "+0")
        assert files() == [C, C, N, N], files()
        assert c.status()["lastloadedplaylist"] == "mix", c.status()

        # consume oneshot, searchcount, protocol features, tagtypes available.
        c.consume("oneshot")
        assert c.status()["consume"] == "oneshot"
        c.next()
        s = c.status()
        assert s["consume"] == "0" and s["playlistlength"] == "3", s
        assert c.searchcount("title", "NIGHT") == {"songs": "1", "playtime": c.count("title", "Night Drive")["playtime"]}
        assert c.protocol("available") == ["hide_playlists_in_root"]
        assert c.protocol() == []
        c.protocol("enable", "hide_playlists_in_root")
        assert c.protocol() == ["hide_playlists_in_root"]
        assert not any("playlist" in entry for entry in c.lsinfo()), c.lsinfo()
        c.protocol("clear")
        assert any("playlist" in entry for entry in c.lsinfo()), c.lsinfo()
        assert c.tagtypes("available") == c.tagtypes()
        c.tagtypes("reset", "Artist", "Title")

        # Play counts as myMPD keeps them with 0.24: sticker inc, find sorted by value_int.
        c.sticker_inc("song", M, "plays", "2")
        c.sticker_inc("song", M, "plays", "3")
        c.sticker_set("song", N, "plays", "10")
        c.sticker_dec("song", N, "plays", "1")
        assert c.sticker_get("song", M, "plays") == "5", c.sticker_get("song", M, "plays")
        found = c.sticker_find("song", "", "plays", "sort", "-value_int")
        assert [f["file"] for f in found] == [N, M], found
        assert [f["file"] for f in c.sticker_find("song", "", "plays", "gt", "6")] == [N]
        assert [f["file"] for f in c.sticker_find("song", "", "plays", "sort", "uri", "window", "0:1")] == [M]
        print("PASS")
        """
}
