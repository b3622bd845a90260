import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Tracks: choosing audio and subtitle tracks, and their labels (``MediaInfo/audioLabel(_:)``) (the `aid`/`vid`/`sid`
/// properties are ``PropertyTable``'s; the subtitles an item opens with, ``OpenPlan``'s).
extension PlayerController {
    public func selectSubtitle(_ id: Int?) {
        player.selectSubtitleTrack(id)
        subtitlesVisible = true
        let label = id.flatMap { i in player.subtitleTracks.first { $0.id == i }?.label } ?? "off"
        show("subtitles: \(label)")
    }

    public func selectAudio(_ index: Int?) {
        player.selectAudioTrack(index)
        show("audio: \(index.flatMap { player.mediaInfo?.audioLabel($0) } ?? "off")")
    }
}

extension MediaInfo {
    /// Video track `index`: its number, language, title, codec and size (`off`: no such track).
    func videoLabel(_ index: Int) -> String {
        guard video.indices.contains(index) else { return "off" }
        let t = video[index]
        return ["#\(index + 1)", t.tags.language, t.tags.title.map { "\"\(TextSanitizer.clean($0))\"" }, t.codec, "\(t.width)×\(t.height)"]
            .compactMap { $0 }.joined(separator: " · ")
    }

    /// Audio track `index` as menus name it (``AudioStreamInfo/label``; `off`: no such track).
    func audioLabel(_ index: Int) -> String {
        audio.indices.contains(index) ? audio[index].label : "off"
    }
}
