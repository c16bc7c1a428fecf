import JukeboxCore
import Testing

@Suite struct ReplayGainTests {
    @Test func tagsAreReadAsMPDReadsThem() {
        let info = ReplayGainInfo(tags: [
            ("replaygain_track_gain", "-6.02 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.988"),
            ("ReplayGain_Album_Gain", "+1.5 dB"), ("REPLAYGAIN_ALBUM_PEAK", " 1.2"),
            ("MusicBrainz Album Id", "x"), ("REPLAYGAIN_TRACK_GAIN", "-1 dB"),
        ])
        #expect(info?.track == .init(gainDb: -6.02, peak: 0.988))
        #expect(info?.album == .init(gainDb: 1.5, peak: 1.2))
        #expect(ReplayGainInfo(tags: [("REPLAYGAIN_TRACK_PEAK", "0.5"), ("REPLAYGAIN_ALBUM_GAIN", "dB")]) == nil)
        #expect(ReplayGainInfo(tags: [("REPLAYGAIN_TRACK_GAIN", "3")])?.track == .init(gainDb: 3))
    }

    /// As MPD 0.23's Opus decoder: R128 gains in 1/256 dB plus 5 dB, whole integers only,
    /// the last of each, REPLAYGAIN_* ignored; with neither R128 gain, a track gain of 5 dB.
    @Test func opusR128GainsAreReadAsMPDReadsThem() {
        let info = ReplayGainInfo(opusComments: [
            ("R128_TRACK_GAIN", "-1234"), ("r128_album_gain", "+512"), ("REPLAYGAIN_TRACK_GAIN", "-20 dB"),
            ("R128_ALBUM_GAIN", "256"),
        ])
        #expect(info.track == .init(gainDb: -1234.0 / 256 + 5))
        #expect(info.album == .init(gainDb: 1 + 5))
        #expect(ReplayGainInfo(opusComments: []) == ReplayGainInfo(track: .init(gainDb: 5)))
        #expect(
            ReplayGainInfo(opusComments: [("R128_TRACK_GAIN", "12 dB"), ("REPLAYGAIN_TRACK_GAIN", "-3 dB")])
                == ReplayGainInfo(track: .init(gainDb: 5)))
        #expect(ReplayGainInfo(opusComments: [("R128_ALBUM_GAIN", " -256")]) == ReplayGainInfo(album: .init(gainDb: 4)))
        #expect(ReplayGainInfo(opusComments: [("R128_TRACK_GAIN", "-25600")]).track == .init(gainDb: 5))
    }

    @Test func autoIsAlbumInOrderAndTrackInRandom() {
        #expect(ReplayGainMode.auto.effective(random: false) == .album)
        #expect(ReplayGainMode.auto.effective(random: true) == .track)
        for mode in [ReplayGainMode.off, .track, .album] {
            #expect(mode.effective(random: true) == mode && mode.effective(random: false) == mode)
        }
    }

    @Test(
        arguments: [
            // (track gain, track peak, album gain, album peak, mode, preamp, missing preamp, scale)
            (-6.02, nil, nil, nil, ReplayGainMode.track, 0.0, 0.0, 0.50003),
            (-6.02, nil, -3.0, nil, .off, 0.0, 0.0, 1.0),
            (-6.02, nil, -3.0, nil, .album, 0.0, 0.0, 0.70795),
            (-6.02, nil, nil, nil, .album, 0.0, 0.0, 0.50003),  // no album gain: the track's
            (-6.02, nil, nil, nil, .track, 6.02, 0.0, 1.0),  // preamp added
            (nil, nil, nil, nil, .track, 6.0, -3.0, 0.70795),  // untagged: the missing preamp
            (nil, nil, nil, nil, .off, 0.0, -3.0, 1.0),
            (6.0, 0.8, nil, nil, .track, 0.0, 0.0, 1.25),  // 1.995 × 0.8 > 1: limited to 1/peak
            (6.0, 0.4, nil, nil, .track, 0.0, 0.0, 1.99526),
            (-2.0, 0.9, 6.0, 0.9, .album, 0.0, 0.0, 1.11111),
            (30.0, nil, nil, nil, .track, 0.0, 0.0, 15.0),  // MPD's cap
        ] as [(Double?, Double?, Double?, Double?, ReplayGainMode, Double, Double, Double)])
    func scale(
        _ row: (Double?, Double?, Double?, Double?, ReplayGainMode, Double, Double, Double)
    ) {
        let (trackGain, trackPeak, albumGain, albumPeak, mode, preamp, missing, expected) = row
        let info =
            trackGain == nil && albumGain == nil
            ? nil
            : ReplayGainInfo(
                track: trackGain.map { .init(gainDb: $0, peak: trackPeak) },
                album: albumGain.map { .init(gainDb: $0, peak: albumPeak) })
        let got = ReplayGain.scale(
            info, mode: mode, settings: ReplayGainSettings(preampDb: preamp, missingPreampDb: missing))
        #expect(abs(got - expected) < 1e-5, "got \(got)")
    }
}
