import AetherBase
import AetherSubtitles
import TerminalGraphics

/// What the UI hands the video output: the scene (the picture's placement, the overlays' mask,
/// the stills beside the video), and what the output reports back.
extension VideoOutput {
    /// Where and how to draw, set by the UI thread.
    struct Scene: Equatable {
        var placement: Placement
        var mask: CellMask
        /// Pictures drawn beside the video (the scrub preview), each by a driver of its own.
        var stills: [Still] = []
    }

    /// A picture the UI puts on screen next to the video: the scrub preview, the music view's
    /// cover. A preview's cells are in the video's mask, so the video never paints over it.
    struct Still: Equatable {
        var placement: Placement
        /// Changes when the picture does (pictures are not compared byte by byte).
        var stamp: Int
        var picture: StillPicture
        /// Cells left alone (overlays over the cover); nil: none.
        var mask: CellMask? = nil

        static func == (a: Still, b: Still) -> Bool { a.placement == b.placement && a.stamp == b.stamp && a.mask == b.mask }
    }

    /// Packed RGB24 pixels of a still, shared with the render thread (never mutated).
    final class StillPicture: Sendable {
        let width: Int, height: Int
        let pixels: [UInt8]

        init(width: Int, height: Int, pixels: [UInt8]) {
            self.width = width
            self.height = height
            self.pixels = pixels
        }
    }

    /// Totals for the stats box, the telemetry pane and the stats file.
    struct Totals: Sendable, Equatable {
        var framesPainted = 0
        var framesSuperseded = 0
        var renderSeconds = 0.0
        var writeSeconds = 0.0
        var bytes = 0
    }

    /// The bytes that erase (ECH, default attributes, the cursor put back) the cells the
    /// pictures of `scene` cover: the video's but those its mask leaves to overlays (their text
    /// stays), and each still's but those over it (its own mask). Empty when there is none.
    /// In every terminal this takes a sixel picture off those cells (and their text, which the
    /// relayout after a switch draws again); kitty's images go with the driver's teardown.
    static func pictureErase(for scene: Scene) -> [UInt8] {
        let bytes = ByteBuffer(capacity: 1024)
        bytes.appendErase(scene.placement.rect, sparing: scene.mask)
        for still in scene.stills {
            bytes.appendErase(still.placement.rect, sparing: still.mask ?? CellMask(columns: 0, rows: 0))
        }
        guard !bytes.isEmpty else { return [] }
        return Escape.saveCursor + Escape.resetAttributes + bytes.bytes + Escape.restoreCursor
    }

    /// True when text subtitles with an ASS event are drawn into the picture by libass (and so
    /// left out of the text cells).
    static func drawsTextSubtitles(driver: any VideoDriver, style: ASSStyleOptions) -> Bool {
        style.enabled && driver.showsPixels
    }
}
