import AetherEngine
@testable import AetherMedia
@testable import AetherSubtitles
import Testing

/// Audio and subtitle tracks are named in one format (issue 62, item 18: the menus wrote
/// `eng "English" aac 5.1 default` against `ger · "…" · subrip · default`). Pure (unit tier).
@Suite struct TrackLabelTests {
    static func audio(language: String?, title: String?, file: String? = nil) -> AudioStreamInfo {
        AudioStreamInfo(index: 1, codec: "aac", codecLongName: "AAC", profile: nil, sampleRate: 48000, channels: 6, layout: "5.1",
                        layoutShort: "5.1", isAtmos: false, bitRate: nil,
                        tags: StreamTags(language: language, title: title, isDefault: true, isForced: false), externalFile: file)
    }

    static func subtitles(_ source: SubtitleTrackInfo.Source, language: String?, title: String?) -> SubtitleTrackInfo {
        SubtitleTrackInfo(id: 0, source: source, codec: "subrip", kind: .text, language: language, title: title, isDefault: true, isForced: true)
    }

    @Test func audioAndSubtitlesShareTheFormat() {
        #expect(Self.audio(language: "eng", title: "English").label == #"eng · "English" · aac · 5.1 · default"#)
        #expect(Self.subtitles(.embedded(streamIndex: 2), language: "ger", title: "Deutsch").label
                == #"ger · "Deutsch" · subrip · default · forced"#)
    }

    @Test func externalFilesComeFirstByName() {
        #expect(Self.audio(language: nil, title: nil, file: "/music/commentary.flac").label == "commentary.flac · und · aac · 5.1 · default")
        #expect(Self.subtitles(.sidecar(path: "/films/test.en.srt"), language: "en", title: nil).label
                == "test.en.srt · en · subrip · default · forced")
    }
}
