import AetherStreaming
import Testing

/// How the demuxer's open reads live sound (``LiveAudioProbe``), unit tier: a station or an
/// `audio/*` body of no length is probed from 16 KiB and half a second; anything else keeps
/// libavformat's own limits.
struct LiveAudioProbeTests {
    static let live = ["formatprobesize": "16384", "analyzeduration": "500000"]

    @Test func aStationOrLiveSoundIsProbedFromALittleOfIt() {
        #expect(LiveAudioProbe.options(contentType: "audio/mpeg", station: true, length: nil) == Self.live)
        #expect(LiveAudioProbe.options(contentType: "audio/aacp", station: false, length: nil) == Self.live)
        #expect(LiveAudioProbe.options(contentType: "application/ogg", station: false, length: nil) == Self.live)
        // An icy answer is a station whatever its type says.
        #expect(LiveAudioProbe.options(contentType: "", station: true, length: nil) == Self.live)
    }

    @Test func aFileOrPicturesKeepLibavformatsLimits() {
        // A file of sound has a length: its start is there at once, and a full probe costs nothing.
        #expect(LiveAudioProbe.options(contentType: "audio/mpeg", station: false, length: 4_000_000).isEmpty)
        #expect(LiveAudioProbe.options(contentType: "video/mp2t", station: false, length: nil).isEmpty)
        #expect(LiveAudioProbe.options(contentType: "", station: false, length: nil).isEmpty)
    }
}
