import CLazyLibraries
import JukeboxTestSupport
import Testing

/// The libraries opened on first use are opened by soname: it must be the one the installed
/// -dev package's link names (the soname a normal link would record), so a distribution that
/// moves to a new ABI fails here, not on a box.
@Suite struct LazyLibraryTests {
    @Test(arguments: [
        (Int(JB_LIB_FLAC), "flac", "FLAC"), (Int(JB_LIB_OGG), "ogg", "ogg"),
        (Int(JB_LIB_VORBISFILE), "vorbisfile", "vorbisfile"), (Int(JB_LIB_OPUSFILE), "opusfile", "opusfile"),
        (Int(JB_LIB_SOXR), "soxr", "soxr"), (Int(JB_LIB_XML2), "libxml-2.0", "xml2"),
        (Int(JB_LIB_ESPEAK), "espeak-ng", "espeak-ng"), (Int(JB_LIB_CURL), "libcurl", "curl"),
        (Int(JB_LIB_AVUTIL), "libavutil", "avutil"), (Int(JB_LIB_AVCODEC), "libavcodec", "avcodec"),
        (Int(JB_LIB_AVFORMAT), "libavformat", "avformat"),
    ])
    func sonameIsTheInstalledLibrarys(library: Int, package: String, name: String) throws {
        // soxr.pc names no libdir: its folder is the one above the .pc file's.
        let libdir =
            try run(["pkg-config", "--variable=libdir", package]).stdoutText.split(separator: "\n").first
            ?? run(["pkg-config", "--variable=pcfiledir", package]).stdoutText.split(separator: "\n").first.map {
                $0 + "/.."
            }
        try expectSoname(of: try #require(libdir.map { "\($0)/lib\(name).so" }), library: library)
    }

    /// libsonic-dev ships no pkg-config file: its link is on the compiler's library path.
    @Test func libsonicsSonameIsTheInstalledLibrarys() throws {
        let dev = try run(["cc", "-print-file-name=libsonic.so"]).stdoutText.split(separator: "\n").first
        try expectSoname(of: String(try #require(dev)), library: Int(JB_LIB_SONIC))
    }

    func expectSoname(of dev: String, library: Int) throws {
        let dynamic = try run(["objdump", "-p", dev]).stdoutText
        let soname = dynamic.split(separator: "\n").first { $0.contains("SONAME") }?.split(separator: " ").last
        let ours = String(cString: jb_lazy_soname(Int32(library)))
        #expect(soname.map(String.init) == ours, "\(dev): \(soname ?? "no SONAME")")
        #expect(jb_lazy_load(Int32(library)) == nil)
    }
}
