import AetherMedia
import AetherStills
import AetherInput
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// Scrub mode: a marker on the progress bar, moved by the mouse (hover or drag) or by keys
/// after `b`, with the target time, its chapter and a thumbnail of it above the bar. Enter or a
/// click seeks there (exactly); Esc leaves. Playback goes on underneath.
struct ScrubState: Equatable {
    /// Where the marker is (seconds).
    var target: Double
    /// Started by hovering the mouse over the bar (leaving the bar ends it).
    var byMouse: Bool
    /// Button 1 is held: releasing it seeks.
    var dragging = false
}

extension HostRuntime {
    /// The thumbnail fetcher of scrub, the filmstrip and screenshots for the item playing
    /// (``StillJobs/fetcher(for:)``).
    func previewFetcher() -> ThumbnailFetcher? { stills.fetcher(for: currentSource) }

    /// UI loop: thumbnails that arrived for scrub's marker and the filmstrip.
    func pollStills() {
        guard let previews = stills.previews else { return }
        func arrival(_ d: (time: Double, image: StillImage)) -> StillArrival {
            StillArrival(time: d.time, shows: d.image.seconds,
                         picture: VideoOutput.StillPicture(width: d.image.width, height: d.image.height, pixels: d.image.pixels))
        }
        if let delivered = previews.take() { send(.previewArrived(arrival(delivered))) }
        let strip = previews.takeStrip()
        if !strip.isEmpty { send(.stripArrived(strip.map(arrival))) }
    }
}

/// The thumbnail shown for the scrub marker.
struct ScrubPreview {
    var time: Double
    var stamp: Int
    var picture: VideoOutput.StillPicture
}
