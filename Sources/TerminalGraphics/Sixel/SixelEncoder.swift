import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// What each sixel frame paints (`--vo-sixel-repaint`).
///
/// Painting only the pixels that changed (unset pixels keep what the terminal shows, `P2=1`)
/// sends the fewest bytes, but only on a terminal that composes its images: one that keeps the
/// earlier image under a new image's unset pixels (xterm, foot). mlterm draws them as
/// background, so there only whole pictures are right. Which a terminal gets by default is
/// ``VideoDrivers/sixelRepaint(for:)``. (xterm sends the X server one line request per colour
/// run of an image with holes; once measured at 8 frames a second against 18 with whole
/// pictures on a grainy 1280×768 picture, the real-terminal matrix later found the two equal.)
public enum SixelRepaint: String, Sendable, CaseIterable {
    /// Only the pixels whose colour changed.
    case changed
    /// The whole picture (except overlay cells) whenever anything changed.
    case full
}

/// Encodes RGB(A) frames as sixel images for a video stream.
///
/// - Palette per scene: up to ``Options/colors`` registers (at most 255), rebuilt only when
///   the ``SceneChangeDetector`` sees the picture change enough, so consecutive frames share a
///   palette (no palette flicker) and a warm nearest-colour table.
/// - Dithering: ``SixelDither`` none / ordered / error diffusion.
/// - Only what changed is sent: the encoder remembers the palette index the terminal shows at
///   every pixel, and each image paints only the pixels whose index changes; the others are
///   left unset, which with `P2=1` keeps what the terminal shows. With
///   ``Options/noiseThreshold`` a pixel also keeps its shown colour while that colour is within
///   the threshold of the new pixel, so grain does not repaint the whole picture every frame.
///   The image always starts at the top-left of the picture and has its full size, so the
///   caller places it exactly as a full frame (no cell geometry is needed); a band where
///   nothing changed costs one byte. A palette rebuild repaints everything.
/// - ``SixelRepaint/full`` paints the whole picture whenever anything changed instead (for
///   terminals that do not compose images: mlterm).
/// - Identical input frames are not re-encoded: ``encode(_:into:repeatIdentical:transparent:)``
///   reports ``FrameReport/Outcome-swift.enum/identical`` and writes nothing (the terminal still
///   shows it), or a full repaint of what the terminal should show when the caller must repaint.
/// - Overlays: pixel rectangles passed as `transparent` are never painted.
/// - Pieces: a frame can go out as several images, one per rectangle of `pieces` (the
///   picture around the overlays, for terminals that do not compose images: mlterm blanks the
///   text under an image's unset pixels, so no image may cover an overlay at all).
///
/// Not thread-safe: one encoder per video region, used on the render thread.
public final class SixelEncoder {
    public struct Options: Sendable, Equatable {
        /// Palette size, 2…256 (the encoder uses at most 255 registers); use
        /// ``TerminalCapabilities/Sixel/colorRegisters`` as the limit.
        public var colors: Int
        /// `none` by default, as the CLI's `--vo-sixel-dither`: on video it gives the highest
        /// PSNR and the fewest bytes (`aether-bench graphics`, grainy 1280×768: 35.5 dB at
        /// 479 kB/frame against ordered's 34.4 dB at 592 kB), and its picture is stable from
        /// frame to frame, so partial updates stay small.
        public var dither: SixelDither
        /// Share (0…1) of sampled pixels whose coarse colour must change before a new palette is built.
        public var sceneChangeThreshold: Double
        /// Euclidean RGB distance (0…441) within which a pixel keeps the colour the terminal
        /// already shows instead of being repainted; 0 repaints every pixel whose palette index
        /// changes. Applies to `none` and `ordered` dither (error diffusion changes its noise
        /// every frame by design).
        public var noiseThreshold: Int
        /// What a frame paints: the pixels that changed, or the whole picture (see
        /// ``SixelRepaint``).
        public var repaint: SixelRepaint

        public init(colors: Int = 256, dither: SixelDither = .none, sceneChangeThreshold: Double = 0.2,
                    noiseThreshold: Int = Options.defaultNoiseThreshold, repaint: SixelRepaint = .changed) {
            self.colors = min(256, max(2, colors))
            self.dither = dither
            self.sceneChangeThreshold = sceneChangeThreshold
            self.noiseThreshold = max(0, noiseThreshold)
            self.repaint = repaint
        }

        /// About twice the grain of a typical film or noisy H.264 source at 1280×768; see the
        /// graphics benchmark's grainy sequence.
        public static let defaultNoiseThreshold = 12
    }

    /// What one `encode` call did, with the time of each phase (habit 11).
    public struct FrameReport: Sendable, Equatable {
        /// One image of a frame sent in pieces: the rectangle of the picture it paints and its
        /// bytes in the output (absolute offsets). The caller places it at the rectangle's origin.
        public struct Piece: Sendable, Equatable {
            public var rect: PixelRect
            public var bytes: Range<Int>
        }

        public enum Outcome: Sendable, Equatable {
            case encoded
            /// Same pixels as the previous frame, or no pixel beyond the noise threshold: the
            /// terminal already shows this picture.
            case identical
        }
        public var outcome: Outcome
        public var paletteRebuilt = false
        public var colorsUsed = 0
        public var bytes = 0
        /// The stages' costs, measured when the encoder has a ``SixelEncoder/stageClock`` (0 else).
        /// Scene-change check and palette building.
        public var analyseNanoseconds: UInt64 = 0
        /// Pixel → palette index (with dithering).
        public var mapNanoseconds: UInt64 = 0
        /// Sixel bands and run-length encoding.
        public var emitNanoseconds: UInt64 = 0
        /// The images written when the frame was asked for in pieces, in order (pieces with
        /// nothing to paint are left out); empty when it went out as one image.
        public var pieces: [Piece] = []
    }

    public struct Statistics: Sendable, Equatable {
        public var framesEncoded = 0
        public var framesIdentical = 0
        public var paletteRebuilds = 0
    }

    public var options: Options {
        didSet { if options != oldValue { invalidate() } }
    }
    public private(set) var statistics = Statistics()
    /// What the stages' costs in ``FrameReport`` are measured on (the bench's breakdown); nil
    /// measures nothing, as the player, which reads none of them, does.
    public var stageClock: TimeSource?
    /// The palette of the last encoded frame.
    public var palette: SixelPalette { scene.lookup.palette }

    private var scene: ScenePalette
    private let rasterizer = SixelRasterizer()
    private let ditherer = Ditherer()
    private var planes = IndexPlanes()
    private var input = InputHistory()
    /// One piece's indices and shown indices, its height rounded up to a whole band (reused).
    private var pieceIndices: [UInt8] = []
    private var pieceShown: [UInt8] = []

    public init(options: Options = Options()) {
        self.options = options
        scene = ScenePalette(threshold: options.sceneChangeThreshold)
    }

    /// Forgets the palette and what the terminal shows: the next frame is analysed and painted
    /// from scratch.
    public func invalidate() {
        scene.reset(threshold: options.sceneChangeThreshold)
        input.forget()
        planes.forgetShown()
    }

    /// Appends one sixel image (DCS … ST) for `image` to `output`, painting only what the
    /// terminal does not already show (see the type's notes); appends nothing when that is
    /// nothing.
    ///
    /// The image height must be a multiple of 6 (``PictureGeometry`` sizes images that way) so
    /// the last band is full and the cursor lands where ``PictureGeometry`` expects.
    /// Place the cursor (CUP) at the image's top-left cell before these bytes, every frame.
    ///
    /// - Parameters:
    ///   - repeatIdentical: when the terminal already shows the picture, append a full image
    ///     of it anyway (the caller must repaint, for example after the screen was cleared
    ///     behind the encoder's back; ``invalidate()`` does the same for the next frame).
    ///   - transparent: rectangles in image pixels that are left unpainted (overlays drawn
    ///     over the video); the terminal keeps what it shows there. Their pixels count as
    ///     unknown afterwards, so they are painted once the rectangle goes away.
    ///   - pieces: empty, one image of the whole picture; otherwise one image per rectangle
    ///     (in image pixels, any height), each painting only the pixels inside it, its raster
    ///     attributes its own size, reported in ``FrameReport/pieces`` for the caller to place
    ///     (CUP to the cell at the rectangle's origin before each). Pixels in no piece are
    ///     never painted; give them as `transparent` too, so they count as unknown.
    @discardableResult
    public func encode(_ image: PixelImage, into output: ByteBuffer, repeatIdentical: Bool = false,
                       transparent: [PixelRect] = [], pieces: [PixelRect] = []) throws(RenderError) -> FrameReport {
        guard image.height % 6 == 0 else { throw .heightNotMultipleOfSix(image.height) }
        let bounds = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        let holes = transparent.map { $0.intersection(bounds) }.filter { !$0.isEmpty }
        let pixels = image.width * image.height
        planes.reserve(pixels)
        if image.size != input.size { planes.forgetShown(pixels) }
        let sameOverlays = holes == input.transparent
        input.transparent = holes
        // Nil: one image of the whole picture.
        let rects = pieces.isEmpty ? nil : pieces.map { $0.intersection(bounds) }.filter { !$0.isEmpty }
        if input.isIdentical(image) && scene.isBuilt && sameOverlays {
            return identical(image, output: output, repeatIdentical: repeatIdentical, pieces: rects)
        }
        var report = FrameReport(outcome: .encoded)
        let watch = stageClock.map { Stopwatch(clock: $0) }
        if scene.update(for: image, colors: options.colors) {
            report.paletteRebuilt = true
            statistics.paletteRebuilds += 1
            // Registers are redefined: terminals that share them across images would recolour
            // what they show, so everything is painted again.
            planes.forgetShown(pixels)
        }
        let t1 = watch?.nanoseconds ?? 0
        let lookup = scene.lookup, indices = planes.indices, shown = planes.shown
        let amplitude = Self.orderedAmplitude(colors: lookup.palette.count)
        // A row whose pixels did not change maps to what the terminal shows there, wherever that
        // is known (no hole, palette or size change since): the same pixel met the same table
        // and threshold last frame (not so for error diffusion, whose noise moves).
        let unchanged = options.dither == .errorDiffusion ? nil : input.rowUnchanged
        ditherer.map(image, lookup: lookup, dither: options.dither, amplitude: amplitude,
                     threshold: options.noiseThreshold, previous: shown, unchangedRows: unchanged, into: indices)
        for hole in holes {
            for y in hole.y..<(hole.y + hole.height) {
                (indices + y * image.width + hole.x).update(repeating: ColorLookup.none, count: hole.width)
            }
        }
        let t2 = watch?.nanoseconds ?? 0
        report.mapNanoseconds = t2 - t1
        let start = output.count
        // A whole-picture repaint once anything changed (beyond the noise threshold): drawn
        // against "nothing known", so every pixel outside the overlays is set.
        if options.repaint == .full && memcmp(indices, shown, pixels) != 0 {
            planes.forgetShown(pixels)   // replaced by `indices` below
        }
        if let rects {
            (report.colorsUsed, report.pieces) = writePieces(rects, indices: indices, previous: shown,
                                                             width: image.width, output: output)
        } else {
            report.colorsUsed = rasterizer.write(indices: indices, previous: shown, width: image.width,
                                                 height: image.height, palette: lookup.palette, output: output)
        }
        planes.swap()
        report.emitNanoseconds = (watch?.nanoseconds ?? 0) - t2
        report.analyseNanoseconds = t1
        report.bytes = output.count - start
        guard report.bytes > 0 else {
            // Nothing beyond the noise threshold: the terminal already shows this picture.
            var same = identical(image, output: output, repeatIdentical: repeatIdentical, pieces: rects)
            same.paletteRebuilt = report.paletteRebuilt
            return same
        }
        statistics.framesEncoded += 1
        return report
    }

    /// The report for a picture the terminal already shows; with `repeatIdentical`, a full
    /// image of what it shows.
    private func identical(_ image: PixelImage, output: ByteBuffer, repeatIdentical: Bool, pieces: [PixelRect]?) -> FrameReport {
        statistics.framesIdentical += 1
        var report = FrameReport(outcome: .identical)
        guard repeatIdentical else { return report }
        let start = output.count
        let indices = planes.indices, shown = planes.shown, palette = scene.lookup.palette
        // `indices` is scratch between frames: nothing known, so every shown pixel is painted.
        indices.update(repeating: ColorLookup.none, count: image.width * image.height)
        if let pieces {
            (report.colorsUsed, report.pieces) = writePieces(pieces, indices: shown, previous: indices,
                                                             width: image.width, output: output)
        } else {
            report.colorsUsed = rasterizer.write(indices: shown, previous: indices, width: image.width,
                                                 height: image.height, palette: palette, output: output)
        }
        report.bytes = output.count - start
        return report
    }

    /// One image per rectangle of `pieces` (inside the picture), from a copy of its pixels'
    /// `indices` and `previous` whose rows past its height (to a whole band) are transparent:
    /// the image is exactly the rectangle's size. Returns the most registers one defines and
    /// the images written.
    private func writePieces(_ pieces: [PixelRect], indices: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>,
                             width: Int, output: ByteBuffer) -> (colors: Int, pieces: [FrameReport.Piece]) {
        var colors = 0
        var written: [FrameReport.Piece] = []
        for piece in pieces {
            let bandHeight = (piece.height + 5) / 6 * 6
            let count = piece.width * bandHeight
            if pieceIndices.count < count {
                pieceIndices = [UInt8](repeating: ColorLookup.none, count: count)
                pieceShown = [UInt8](repeating: ColorLookup.none, count: count)
            }
            pieceIndices.withUnsafeMutableBufferPointer { toIndices in
                pieceShown.withUnsafeMutableBufferPointer { toShown in
                    guard let dstIndices = toIndices.baseAddress, let dstShown = toShown.baseAddress else { return }
                    for row in 0..<bandHeight {
                        let dst = row * piece.width
                        if row < piece.height {
                            let src = (piece.y + row) * width + piece.x
                            (dstIndices + dst).update(from: indices + src, count: piece.width)
                            (dstShown + dst).update(from: previous + src, count: piece.width)
                        } else {
                            (dstIndices + dst).update(repeating: ColorLookup.none, count: piece.width)
                            (dstShown + dst).update(repeating: ColorLookup.none, count: piece.width)
                        }
                    }
                    let start = output.count
                    let used = rasterizer.write(indices: dstIndices, previous: dstShown, width: piece.width,
                                                height: bandHeight, rasterHeight: piece.height,
                                                palette: scene.lookup.palette, output: output)
                    colors = max(colors, used)
                    if output.count > start { written.append(.init(rect: piece, bytes: start..<output.count)) }
                }
            }
        }
        return (colors, written)
    }

    /// Ordered-dither strength: about half the typical distance between palette colours.
    static func orderedAmplitude(colors: Int) -> Int {
        Int((10.0 * Double(256 / max(2, colors))).squareRoot().rounded()) + 5
    }
}
