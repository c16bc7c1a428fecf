import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The daemon's own atom walks over M4A and M4B files whose atoms take the other size forms
/// (issue 34: the lyrics lookup at a track's start trapped on a last `mdat` of size 0): the
/// `©lyr` lyrics and the cover are found in each, as in the file ffmpeg wrote.
@Suite struct MP4AtomSizeStoreTests {
    @Test(arguments: MP4AtomSizes.Variant.allCases)
    func lyricsAndCoverAreFound(variant: MP4AtomSizes.Variant) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let wav = try media.wav("source.wav", seconds: 3)
        let cover = try media.cover(bytes: 3000)
        let folder = MusicFolder(root: dir.path)
        for ext in ["m4a", "m4b"] {
            let (_, path) = try MP4AtomSizes.make(ext, variant, from: wav, cover: cover, in: dir.path)
            #expect(MusicFolder.mp4Lyrics(path: path) == .text(MP4AtomSizes.lyrics), "\(path)")
            let name = String(path.dropFirst(dir.path.count + 1))
            let picture = try #require(try folder.embeddedPicture(of: name, offset: 0, limit: 10_000), "\(path)")
            #expect(picture.mimeType == "image/jpeg")
            #expect(picture.bytes == Array(try readWholeFile(cover)), "\(path)")
        }
    }
}
