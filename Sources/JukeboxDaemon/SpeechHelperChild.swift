import Glibc
import JukeboxCore
import LinuxSupport
import Speech

/// `jukeboxd --speech-helper`: the process espeak-ng runs in. It reads requests on its
/// standard input (`SpeechHelperFrames`), speaks each with espeak-ng and writes the samples, or
/// why not, on its standard output, until its input ends (the daemon closed it or is gone).
/// espeak-ng 1.51 reads freed memory on some texts any MPD client can send (docs/FUZZING.md,
/// finding 10): here a fault ends this process only, and the daemon starts another
/// (`SpeechHelperProcess`).
enum SpeechHelperChild {
    /// The argument that makes jukeboxd the helper (not in the command-line table: only the
    /// daemon starts it).
    static let argument = "--speech-helper"
    /// The helper's process name (`ps`, /proc/PID/comm).
    static let processName = "jb-speech-help"

    /// Serves requests until the input ends: 0, or 2 on a garbled request.
    static func run() -> Int32 {
        // Only the daemon ends it (by closing its input): a Ctrl-C on the terminal is the daemon's.
        signal(SIGINT, SIG_IGN)
        ProcessSettings.nameCurrentThread(processName)
        ProcessSettings.closeInheritedDescriptors()
        // The frames go on a copy of stdout; fd 1 becomes stderr, so that anything the libraries
        // print lands in the daemon's log, not in a reply.
        guard let replies = try? FileDescriptor.standardOutput.duplicate() else { return 1 }
        _ = dup2(STDERR_FILENO, STDOUT_FILENO)
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        var synthesizer: (request: SpeechHelperFrames.Request, made: Result<SpeechSynthesizer, SpeechError>)?
        while true {
            switch SpeechHelperFrames.decodeRequest(pending[...]) {
            case .garbled(let why):
                writeStderr("jukeboxd speech helper: a garbled request (\(why))\n")
                return 2
            case .incomplete:
                let count = chunk.withUnsafeMutableBytes { raw in
                    (try? FileDescriptor.standardInput.read(into: raw.baseAddress!, count: raw.count)) ?? 0
                }
                if count == 0 { return 0 }
                pending += chunk[..<count]
            case .frame(let request, let length):
                pending.removeFirst(length)
                if synthesizer.map({ !sameSettings($0.request, request) }) ?? true {
                    synthesizer = (
                        request,
                        Result { () throws(SpeechError) in
                            try SpeechSynthesizer(
                                voice: request.voice, wordsPerMinute: request.wordsPerMinute,
                                maxSeconds: request.maxSeconds)
                        }
                    )
                }
                let reply = speak(request.text, with: synthesizer!.made)
                do {
                    try replies.writeAll(SpeechHelperFrames.encode(reply, maxSeconds: request.maxSeconds))
                } catch {
                    return 0  // the daemon is gone
                }
            }
        }
    }

    private static func sameSettings(_ a: SpeechHelperFrames.Request, _ b: SpeechHelperFrames.Request) -> Bool {
        a.voice == b.voice && a.wordsPerMinute == b.wordsPerMinute && a.maxSeconds == b.maxSeconds
    }

    private static func speak(_ text: String, with made: Result<SpeechSynthesizer, SpeechError>)
        -> SpeechHelperFrames.Reply
    {
        if let missing = SpeechSynthesizer.libraryMissing { return .unavailable(missing.message) }
        switch made {
        case .failure(let error):
            return .failed(error.message)
        case .success(let synthesizer):
            do {
                return .spoken(samples: try synthesizer.synthesize(text), sampleRate: synthesizer.sampleRate)
            } catch {
                return .failed(error.message)
            }
        }
    }
}
