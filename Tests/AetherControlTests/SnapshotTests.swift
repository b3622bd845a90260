import AetherCommands
@testable import AetherControl
import AetherEngine
import AetherTestSupport
import Foundation
import Testing

private final class QuietHost: PlayerHost {
    func controllerWillUnloadItem(_ controller: PlayerController, reason: String) {}
    func controllerDidLoadItem(_ controller: PlayerController) {}
    func controller(_ controller: PlayerController, show message: String) {}
    func controller(_ controller: PlayerController, perform ui: UIAction) -> CommandResult { .failure("no UI") }
    func controller(_ controller: PlayerController, screenshot subtitles: Bool) -> CommandResult { .failure("no screen") }
}

/// The snapshot's track list, chapters and metadata are built once per item
/// (``MediaCache``): they must still follow every selection, a subtitle file added while the
/// item plays, and the next item.
@Suite(.serialized) struct SnapshotTests {
    @Test func theCachedTrackListFollowsSelectionsAddedTracksAndTheNextItem() throws {
        let player = Player()
        let rich = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        var settings = ControllerSettings(player: PlayerOptions(time: .monotonic))
        settings.player.audio.output = .null
        settings.resume = false
        settings.subtitleAutoload = false
        settings.watchLater = WatchLater(directory: NSTemporaryDirectory() + "aether-snapshot-\(getpid())")
        let playlist = Playlist([PlaylistItem(source: rich), PlaylistItem(source: TestEnvironment.fixture("music-plain.opus"))])
        let controller = PlayerController(player: player, playlist: playlist, settings: settings, clock: .monotonic)
        let host = QuietHost()
        controller.host = host
        defer { player.stop() }
        #expect(controller.start(paused: true))
        controller.waitForOpen()

        func kinds(_ s: PlayerSnapshot) -> [String] { s.media.tracks.map { "\($0.kind.rawValue)\($0.id)\($0.selected ? "*" : "")" } }
        var s = controller.snapshot()
        #expect(kinds(s) == ["video1*", "audio1*", "audio2", "sub1", "sub2"])
        #expect(s.media.chapters.map(\.title) == ["Opening", "Middle", "End"])
        #expect(s.item.metadata["title"].map { !$0.contains("\u{1B}") && $0.hasPrefix("Demo") } == true, "\(s.item.metadata)")
        #expect(s.media.tracks[2].title == "Français")
        #expect(s.media.video?.width == 320)

        // Selections are read each time, not cached.
        #expect(controller.execute(.set("aid", .number(2))) == .ok)
        #expect(controller.execute(.set("sid", .number(2))) == .ok)
        #expect(kinds(controller.snapshot()) == ["video1*", "audio1", "audio2*", "sub1", "sub2*"])
        #expect(controller.execute(.set("sid", .string("no"))) == .ok)
        #expect(kinds(controller.snapshot()) == ["video1*", "audio1", "audio2*", "sub1", "sub2"])

        // A subtitle file added while the item plays changes the track list.
        let sidecar = TestEnvironment.fixture("h264-aac-2audio-srt-ass.srt")
        let id = try #require(player.addSubtitleFile(sidecar))
        s = controller.snapshot()
        #expect(kinds(s) == ["video1*", "audio1", "audio2*", "sub1", "sub2", "sub3"])
        #expect(s.media.tracks.last?.externalFilename == sidecar)
        controller.selectSubtitle(id)
        #expect(kinds(controller.snapshot()).last == "sub3*")

        // The next item: its own tracks, chapters and metadata.
        #expect(controller.execute(.playlistNext) == .ok)
        controller.waitForOpen()   // it opens on its thread
        s = controller.snapshot()
        #expect(kinds(s) == ["audio1*"])
        #expect(s.media.chapters.isEmpty)
        #expect(s.item.metadata["title"] == "Opus Title" && s.item.metadata["artist"] == "Opus Artist", "\(s.item.metadata)")
        #expect(s.media.video == nil)
    }

    /// Two items without subtitles: only the item's load can tell the cache that it is stale.
    @Test func theNextItemWithTheSameSubtitleListIsNotShownWithTheLastOnesTracks() throws {
        let player = Player()
        var settings = ControllerSettings(player: PlayerOptions(time: .monotonic))
        settings.player.audio.output = .null
        settings.resume = false
        settings.watchLater = WatchLater(directory: NSTemporaryDirectory() + "aether-snapshot-\(getpid())")
        let playlist = Playlist([PlaylistItem(source: TestEnvironment.fixture("music-plain.opus")),
                                 PlaylistItem(source: TestEnvironment.fixture("music-tagged.mp3"))])
        let controller = PlayerController(player: player, playlist: playlist, settings: settings, clock: .monotonic)
        let host = QuietHost()
        controller.host = host
        defer { player.stop() }
        #expect(controller.start(paused: true))
        controller.waitForOpen()
        var s = controller.snapshot()
        #expect(s.item.metadata["title"] == "Opus Title")
        #expect(s.media.tracks.first { $0.kind == .audio }?.codec == "opus")
        #expect(controller.execute(.playlistNext) == .ok)
        controller.waitForOpen()   // it opens on its thread
        s = controller.snapshot()
        #expect(s.item.metadata["title"] == "Test Title" && s.item.metadata["album"] == "Album One", "\(s.item.metadata)")
        #expect(s.media.tracks.first { $0.kind == .audio }?.codec == "mp3")
    }
}
