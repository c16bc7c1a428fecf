/// Where a source channel is meant to sound: the speaker positions of WAVE's `dwChannelMask`,
/// in its bit order (FFmpeg's `AV_CH_*` masks use the same bits).
public enum SpeakerPosition: Int, Sendable, CaseIterable {
    case frontLeft, frontRight, frontCenter, lowFrequency, backLeft, backRight
    case frontLeftOfCenter, frontRightOfCenter, backCenter, sideLeft, sideRight
    case topCenter, topFrontLeft, topFrontCenter, topFrontRight, topBackLeft, topBackCenter, topBackRight

    /// This speaker's weights in the left and right output of a stereo downmix before
    /// normalisation, as ITU-R BS.775 mixes 3/2 down to 2/0: the front pair as they are, the
    /// centre and the surrounds at -3 dB (a centre one into both), the LFE dropped.
    var stereoWeights: (left: Double, right: Double) {
        let half = 0.707_106_781_186_547_5  // -3 dB
        return switch self {
        case .frontLeft, .frontLeftOfCenter: (1, 0)
        case .frontRight, .frontRightOfCenter: (0, 1)
        case .frontCenter, .backCenter, .topCenter, .topFrontCenter, .topBackCenter: (half, half)
        case .backLeft, .sideLeft, .topFrontLeft, .topBackLeft: (half, 0)
        case .backRight, .sideRight, .topFrontRight, .topBackRight: (0, half)
        case .lowFrequency: (0, 0)
        }
    }
}

extension [SpeakerPosition] {
    /// The positions a WAVE channel mask names, in channel order (the mask's bit order);
    /// nil when the mask does not name exactly `channels` known positions.
    public static func wave(mask: UInt64, channels: Int) -> [SpeakerPosition]? {
        let named = SpeakerPosition.allCases.filter { mask & (1 << UInt64($0.rawValue)) != 0 }
        guard named.count == channels, mask >> UInt64(SpeakerPosition.allCases.count) == 0 else { return nil }
        return named
    }

    /// The order FLAC defines for 1 to 8 channels (WAVE's, as WAVE files without a mask and
    /// ALAC use too): L R C LFE, then the surrounds.
    public static func standard(channels: Int) -> [SpeakerPosition] {
        switch channels {
        case 1: [.frontCenter]
        case 2: [.frontLeft, .frontRight]
        case 3: [.frontLeft, .frontRight, .frontCenter]
        case 4: [.frontLeft, .frontRight, .backLeft, .backRight]
        case 5: [.frontLeft, .frontRight, .frontCenter, .backLeft, .backRight]
        case 6: [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight]
        case 7: [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backCenter, .sideLeft, .sideRight]
        default:
            Array(
                ([.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight, .sideLeft, .sideRight]
                    as [SpeakerPosition]).prefix(channels))
        }
    }

    /// The Vorbis I specification's order (Opus's channel mapping family 1 uses it too):
    /// the centre between the front pair, the LFE last.
    public static func vorbis(channels: Int) -> [SpeakerPosition] {
        switch channels {
        case 1: [.frontCenter]
        case 2: [.frontLeft, .frontRight]
        case 3: [.frontLeft, .frontCenter, .frontRight]
        case 4: [.frontLeft, .frontRight, .backLeft, .backRight]
        case 5: [.frontLeft, .frontCenter, .frontRight, .backLeft, .backRight]
        case 6: [.frontLeft, .frontCenter, .frontRight, .backLeft, .backRight, .lowFrequency]
        case 7: [.frontLeft, .frontCenter, .frontRight, .sideLeft, .sideRight, .backCenter, .lowFrequency]
        default:
            Array(
                ([.frontLeft, .frontCenter, .frontRight, .sideLeft, .sideRight, .backLeft, .backRight, .lowFrequency]
                    as [SpeakerPosition]).prefix(channels))
        }
    }
}

/// Mixes more than two channels down to stereo, so every source plays on the two channels
/// the ring and the device carry. The weights (`SpeakerPosition.stereoWeights`) are scaled
/// down so that neither output's weights add up to more than 1: full-scale input on every
/// channel reaches full scale at most, never clips (5.1 plays 7.7 dB quieter than its front
/// pair would alone).
public struct StereoDownmix: Sendable, Equatable {
    /// Per source channel, its weight in the left output and in the right.
    public let left: [Float]
    public let right: [Float]

    public init(speakers: [SpeakerPosition]) {
        let weights = speakers.map(\.stereoWeights)
        let loudest = max(weights.reduce(0) { $0 + $1.left }, weights.reduce(0) { $0 + $1.right }, 1)
        left = weights.map { Float($0.left / loudest) }
        right = weights.map { Float($0.right / loudest) }
    }

    /// Mixes `frames` frames of interleaved S16 in the source's channels at `source` into
    /// interleaved stereo at `stereo`, each output sample rounded to the nearest.
    public func mix(_ source: UnsafePointer<Int16>, frames: Int, into stereo: UnsafeMutablePointer<Int16>) {
        let channels = left.count
        left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { right in
                for frame in 0..<frames {
                    let input = source + frame * channels
                    var l: Float = 0
                    var r: Float = 0
                    for c in 0..<channels {
                        let sample = Float(input[c])
                        l += left[c] * sample
                        r += right[c] * sample
                    }
                    stereo[frame * 2] = Int16(max(-32768, min(32767, l.rounded())))
                    stereo[frame * 2 + 1] = Int16(max(-32768, min(32767, r.rounded())))
                }
            }
        }
    }
}
