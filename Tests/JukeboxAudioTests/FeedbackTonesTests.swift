import Glibc
import JukeboxCore
import LinuxSupport
import Testing

@testable import JukeboxAudio

/// The feedback sounds' buffer holds them at 192 kHz; rendered at 44.1 kHz, only the part
/// written is resident.
@Suite struct FeedbackTonesTests {
    @Test func onlyTheRenderedPartIsResident() {
        // As the daemon sets it: a chunk this size gets a mapping of its own.
        #expect(ProcessSettings.mapMallocChunks(ofAtLeast: 128 * 1024))
        var tones = FeedbackTones()
        tones.render(rate: 44100)
        let rendered = FeedbackSound.allCases.reduce(0) { $0 + $1.frames(rate: 44100) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = Int(bitPattern: tones.samples) & ~(page - 1)
        let end = Int(bitPattern: tones.samples + tones.capacity)
        let pages = (end - start + page - 1) / page
        var vector = [UInt8](repeating: 0, count: pages)
        #expect(mincore(UnsafeMutableRawPointer(bitPattern: start), end - start, &vector) == 0)
        let resident = vector.filter { $0 & 1 != 0 }.count
        // The rendered samples, and a page on either side.
        #expect(resident <= rendered * 2 / page + 2, "\(resident) of \(pages) pages resident")
        #expect(tones.range(.cardRead).count == FeedbackSound.cardRead.frames(rate: 44100))
    }
}
