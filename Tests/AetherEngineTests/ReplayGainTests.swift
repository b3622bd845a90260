import CFFmpeg
@testable import AetherMedia
import Foundation
import Testing

/// ReplayGain tags read from metadata dictionaries (hostile values are no values) and the rule
/// that turns them into the gain applied (mpv's `--replaygain*`). Tier: unit.
@Suite struct ReplayGainTests {
    @Test func gainsPeaksAndR128AreReadStrictly() {
        #expect(ReplayGainTags.gain("-6.00 dB") == -6)
        #expect(ReplayGainTags.gain("+2.5dB") == 2.5)
        #expect(ReplayGainTags.gain(" -6 ") == -6)
        #expect(ReplayGainTags.gain("3.1 DB") == 3.1)
        for hostile in ["", "dB", "nan", "inf", "-inf dB", "1e3", "65 dB", "-1000", "--6", "6..0", "\u{1b}[31m-6 dB", "٣ dB", "0x10",
                        String(repeating: "9", count: 400)] {
            #expect(ReplayGainTags.gain(hostile) == nil, "\(hostile.prefix(20))")
        }
        #expect(ReplayGainTags.peak("0.988525") == 0.988525)
        #expect(ReplayGainTags.peak("1.2") == 1.2)
        for hostile in ["0", "-0.5", "nan", "1e-9", "100", "x"] { #expect(ReplayGainTags.peak(hostile) == nil, "\(hostile)") }
        #expect(ReplayGainTags.r128("-2560") == -5)   // -10 dB to -23 LUFS: -5 dB to -18 LUFS
        #expect(ReplayGainTags.r128("0") == 5)
        for hostile in ["40000", "-2560.5", "", "1e3"] { #expect(ReplayGainTags.r128(hostile) == nil, "\(hostile)") }
    }

    @Test func theContainerComesFirstThenTheStreamAndR128OnlyWithoutReplayGain() {
        var container: OpaquePointer?, stream: OpaquePointer?
        defer { av_dict_free(&container); av_dict_free(&stream) }
        av_dict_set(&container, "replaygain_track_gain", "-6.00 dB", 0)   // keys match whatever their case
        av_dict_set(&stream, "REPLAYGAIN_TRACK_PEAK", "0.5", 0)
        av_dict_set(&stream, "R128_TRACK_GAIN", "-2560", 0)
        av_dict_set(&stream, "R128_ALBUM_GAIN", "256", 0)
        av_dict_set(&stream, "REPLAYGAIN_ALBUM_PEAK", "banana", 0)
        let tags = ReplayGainTags.read(container, fallback: stream)
        #expect(tags == ReplayGainTags(trackGain: -6, trackPeak: 0.5, albumGain: 6, albumPeak: nil))
        #expect(ReplayGainTags.read(nil, fallback: nil) == ReplayGainTags())
    }

    @Test func theRuleIsMpvs() {
        let tags = ReplayGainTags(trackGain: -6, trackPeak: 0.5, albumGain: -3, albumPeak: 0.8)
        func db(_ s: ReplayGainSettings, _ t: ReplayGainTags = tags) -> (Double, String?) {
            let a = s.applied(to: t)
            #expect(abs(a.factor - pow(10, a.db / 20)) < 1e-12)
            return ((a.db * 1000).rounded() / 1000, a.source)
        }
        #expect(db(ReplayGainSettings()) == (0, nil))
        #expect(db(ReplayGainSettings(mode: .track)) == (-6, "track"))
        #expect(db(ReplayGainSettings(mode: .album)) == (-3, "album"))
        #expect(db(ReplayGainSettings(mode: .track, preamp: 2)) == (-4, "track"))
        // Album mode without an album gain takes the track's.
        #expect(db(ReplayGainSettings(mode: .album), ReplayGainTags(trackGain: -6)) == (-6, "track"))
        // No tags: the fallback alone (no preamp).
        #expect(db(ReplayGainSettings(mode: .track, preamp: 5, fallback: -2), ReplayGainTags()) == (-2, "fallback"))
        // Clipping: +10 dB held at the peak's headroom (0.6: +4.437 dB) unless clipping is allowed.
        let loud = ReplayGainTags(trackGain: 10, trackPeak: 0.6)
        #expect(db(ReplayGainSettings(mode: .track), loud) == (4.437, "track"))
        #expect(db(ReplayGainSettings(mode: .track, clip: true), loud) == (10, "track"))
        // Out-of-range settings are clamped, never infinite.
        #expect(db(ReplayGainSettings(mode: .track, preamp: .infinity)).0 == -6)
        #expect(db(ReplayGainSettings(mode: .track, fallback: 1e9), ReplayGainTags()).0 == 64)
    }
}
