import AetherBase
@testable import AetherControl
import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// Unit tier: an image item stays `--image-display-duration` at its end, timed by the
/// controller's clock (a manual one here: milliseconds, no sleeping), then the playlist moves
/// on; `inf` keeps it until the user moves on. Real images (`still.png`, `still.jpg`) through a
/// real player with its sound off.
@Suite(.serialized) struct ImageHoldTests {
    static func controller(_ duration: ImageDuration, clock: ManualTimeSource) -> PlayerController {
        var settings = ControllerSettings(player: PlayerOptions(time: .monotonic))
        settings.player.audio.output = .null
        settings.resume = false
        settings.subtitleAutoload = false
        settings.imageDuration = duration
        settings.watchLater = WatchLater(directory: NSTemporaryDirectory() + "aether-images-\(getpid())")
        let playlist = Playlist(["still.png", "still.jpg"].map { PlaylistItem(source: TestEnvironment.fixture($0)) })
        return PlayerController(player: Player(), playlist: playlist, settings: settings, clock: clock.source)
    }

    /// Ticks (as the host's loop does) until the first image's one picture has played out.
    static func tickToTheEnd(_ controller: PlayerController) -> Bool {
        waitUntil(5) {
            _ = controller.tick()
            return controller.player.state == .ended
        }
    }

    @Test func anImageStaysItsDurationToTheMillisecond() throws {
        let clock = ManualTimeSource(milliseconds: 10_000)
        let controller = Self.controller(.seconds(1), clock: clock)
        defer { controller.player.stop() }
        #expect(controller.start())
        #expect(Self.tickToTheEnd(controller), "the image never ended")
        #expect(controller.tick() == .running && controller.playlist.position == 0)
        #expect(controller.nextDue == 1, "the host wakes when its second is up")
        clock.advance(milliseconds: 999)
        #expect(controller.tick() == .running && controller.playlist.position == 0)
        #expect(abs((controller.nextDue ?? -1) - 0.001) < 1e-9)
        clock.advance(milliseconds: 1)
        _ = controller.tick()
        #expect(controller.playlist.position == 1, "the next image after exactly 1 s")
    }

    @Test func infHoldsTheImageUntilTheUserMovesOn() throws {
        let clock = ManualTimeSource(milliseconds: 10_000)
        let controller = Self.controller(.forever, clock: clock)
        defer { controller.player.stop() }
        #expect(controller.start())
        #expect(Self.tickToTheEnd(controller), "the image never ended")
        clock.advance(milliseconds: 3_600_000)
        #expect(controller.tick() == .running && controller.playlist.position == 0, "an hour on, still the first image")
        #expect(controller.nextDue == nil, "nothing is due: no wake-up for it")
        #expect(controller.execute(.playlistNext) == .ok)
        #expect(controller.playlist.position == 1)
    }
}
