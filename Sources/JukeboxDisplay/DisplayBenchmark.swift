import Glibc
import JukeboxCore

/// The display's cost per minute of playback: the control loop's refresh (layout, render,
/// changed pixels to the framebuffer) at 20 Hz for `seconds` of a lyric-heavy track, on a
/// file-backed framebuffer of `geometry`, measured in CPU time of the calling thread.
public enum DisplayBenchmark {
    /// The measurement.
    public struct Result: Sendable {
        public var frames: Int
        public var cpuMilliseconds: Double
        public var pixelsWritten: Int
        public var seconds: Int

        /// CPU milliseconds per minute of playback.
        public var cpuMsPerMinute: Double { cpuMilliseconds * 60 / Double(max(1, seconds)) }
    }

    /// Runs the refreshes; `file` is the scratch framebuffer.
    public static func run(geometry: Framebuffer.Geometry, seconds: Int, font: BitmapFont, file: String) throws
        -> Result
    {
        var lrc = "[ti:Benchmark]\n"
        for second in stride(from: 0, to: seconds + 5, by: 4) {
            lrc += "[\(second / 60):\(second % 60 < 10 ? "0" : "")\(second % 60).00]"
            lrc += "A rather long lyric line number \(second) that has to scroll across the screen\n"
        }
        let lyrics = LyricTimeline(lyrics: LRCParser.parse(lrc))
        let framebuffer = try Framebuffer(file: file, geometry: geometry)
        let screen = FramebufferScreen(framebuffer: framebuffer, font: font)
        var playing = NowPlaying(
            title: "A Benchmark Song With A Long Title", artist: "The Display", durationMs: Int64(seconds) * 1000)
        let start = threadCPUNanoseconds()
        var pixels = 0
        let frames = seconds * 20
        for frame in 0..<frames {
            playing.positionMs = Int64(frame) * 50
            if frame % 200 == 100 { screen.handle(.volume(frame % 100), now: .milliseconds(playing.positionMs)) }
            screen.refresh(playing, lyrics: lyrics, now: .milliseconds(playing.positionMs))
            pixels += screen.lastWritten
        }
        let cpu = Double(threadCPUNanoseconds() - start) / 1e6
        return Result(frames: frames, cpuMilliseconds: cpu, pixelsWritten: pixels, seconds: seconds)
    }

    static func threadCPUNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
