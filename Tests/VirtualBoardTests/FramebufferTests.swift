import Foundation
import JukeboxDisplay
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The framebuffer display on a kernel framebuffer: vfb at 320x240 RGB565 (/dev/fb0, the
/// console's fbcon unbound from it, as on a board whose console is elsewhere). The menu is
/// opened and walked with the knob (a uinput device: KEY_ENTER held, REL_X clicks) and the
/// screen read back from /dev/fb0 is the golden picture `MenuScreenTests` keeps. vfb's 16 bpp
/// layout has red in the low bits (red offset 0, blue 11, not RGB565's 11 and 0): the daemon
/// writes the channels where FBIOGET_VSCREENINFO puts them, and the dump is read that way.
extension BoardDeviceTests {
    /// The artists of `MenuScreenTests.catalog`, one short tagged FLAC each.
    static let menuArtists: [(String, String)] = [
        ("ABBA", "Arrival"), ("The Beatles", "Abbey Road"), ("Björk", "Homogenic"),
        ("Édith Piaf", "La Vie en rose"), ("Daft Punk", "Discovery"), ("10cc", "Sheet Music"),
        ("Miles Davis", "Kind of Blue"), ("Nina Simone", "Pastel Blues"), ("Queen", "A Night at the Opera"),
        ("Sigur Rós", "Ágætis byrjun"), ("邓丽君", "淡淡幽情"), ("Zaz", "Zaz"), ("2Pac", "Me Against the World"),
    ]

    @Test func theMenuOnAKernelFramebufferMatchesItsSnapshot() throws {
        let rig = try Self.rig.get()
        let music = rig.folder.file("menu-music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        for (number, (artist, album)) in Self.menuArtists.enumerated() {
            let tags = rig.folder.file("tags.txt")
            try "ARTIST=\(artist)\nALBUM=\(album)\nTITLE=Track 1\nTRACKNUMBER=1\n".write(
                toFile: tags, atomically: true, encoding: .utf8)
            let made = try run(["sox", "-n", "--comment-file", tags, "\(music)/\(number).flac", "trim", "0", "0.1"])
            #expect(made.status == 0, "\(made.stderrText)")
        }
        try rig.board.check(
            "grep -q '^vfb ' /proc/modules || vboard-load vfb vfb_enable=1 mode_option=320x240-16;"
                + " for c in /sys/class/vtconsole/vtcon*; do grep -q 'frame buffer' $c/name && echo 0 > $c/bind; done; true"
        )
        #expect(try rig.board.check("cat /sys/class/graphics/fb0/virtual_size") == "320,240\n")
        let knob = try BoardInputDevice(board: rig.board, name: "rotary", keys: [28], relativeAxes: [0])
        var config = BoardRig.config(name: "fb")
        config.musicDir = "/host/menu-music"
        config.extra = """

            [encoder]
            input_device = "\(knob.eventPath)"

            [display]
            kind = "framebuffer"
            device = "/dev/fb0"
            """
        let daemon = try BoardJukebox(board: rig.board, uart: rig.uart, name: "fb", config: config)
        // The switch held (a long press opens the menu), one click to Artists, a press to open
        // it, three clicks to the fourth artist; clicks apart, so that none counts as a spin.
        try knob.send([.key(28, pressed: true), .pause(1200), .key(28, pressed: false), .pause(300)])
        try knob.send([.relative(0, 1), .pause(300)])
        try knob.tap(28)
        try knob.send([.pause(300), .relative(0, 1), .pause(300), .relative(0, 1), .pause(300), .relative(0, 1)])

        let golden = try #require(
            FileManager.default.contents(atPath: Fixtures.path("Tests/JukeboxDisplayTests/Snapshots/menu-320x240.png")))
        let dump = rig.folder.file("fb0.raw")
        var vfbLayout = FramebufferGeometry.rgb565(width: 320, height: 240)
        swap(&vfbLayout.red, &vfbLayout.blue)
        var shown: [UInt8] = []
        let matched = try waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(300)) {
            try rig.board.check("cat /dev/fb0 > /host/fb0.raw")
            let framebuffer = try Framebuffer(file: dump, geometry: vfbLayout)
            shown = PNG.encode(framebuffer.readCanvas())
            return shown == Array(golden)
        }
        if !matched {
            _ = FileManager.default.createFile(atPath: "/tmp/menu-320x240-vboard.png", contents: Data(shown))
        }
        #expect(matched, "/dev/fb0 differs from menu-320x240.png: see /tmp/menu-320x240-vboard.png; \(daemon.log)")
    }
}
