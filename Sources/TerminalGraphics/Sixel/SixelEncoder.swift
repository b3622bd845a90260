#if canImport(Glibc)
import Glibc
#endif

/// Encodes RGB(A) frames as sixel images for a video stream.
///
/// - Palette per scene: up to ``Options/colors`` registers, rebuilt only when the
///   ``SceneChangeDetector`` sees the picture change enough, so consecutive frames share a
///   palette (no palette flicker) and a warm nearest-colour table.
/// - Dithering: ``SixelDither`` none / ordered / error diffusion.
/// - Identical input frames are not re-encoded: ``encode(_:into:repeatIdentical:)`` reports
///   ``FrameReport/Outcome-swift.enum/identical`` and writes nothing (the terminal still shows it),
///   or the previous bytes when the caller must repaint.
///
/// Not thread-safe: one encoder per video region, used on the render thread.
public final class SixelEncoder {
    public struct Options: Sendable, Equatable {
        /// Palette size, 2…256; use ``TerminalCapabilities/sixelColorRegisters`` as the limit.
        public var colors: Int
        public var dither: SixelDither
        /// Share (0…1) of sampled pixels whose coarse colour must change before a new palette is built.
        public var sceneChangeThreshold: Double

        public init(colors: Int = 256, dither: SixelDither = .ordered, sceneChangeThreshold: Double = 0.2) {
            self.colors = min(256, max(2, colors))
            self.dither = dither
            self.sceneChangeThreshold = sceneChangeThreshold
        }
    }

    /// What one `encode` call did, with the time of each phase (habit 11).
    public struct FrameReport: Sendable, Equatable {
        public enum Outcome: Sendable, Equatable {
            case encoded
            /// Same pixels as the previous frame.
            case identical
        }
        public var outcome: Outcome
        public var paletteRebuilt = false
        public var colorsUsed = 0
        public var bytes = 0
        /// Scene-change check and palette building.
        public var analyseNanoseconds: UInt64 = 0
        /// Pixel → palette index (with dithering).
        public var mapNanoseconds: UInt64 = 0
        /// Sixel bands and run-length encoding.
        public var emitNanoseconds: UInt64 = 0
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
    /// The palette of the last encoded frame.
    public var palette: SixelPalette { lookup.palette }

    private var detector: SceneChangeDetector
    private let lookup = ColorLookup()
    private let rasterizer = SixelRasterizer()
    private var indices: [UInt8] = []
    private var previousInput: [UInt8] = []
    private var previousSize = PixelSize(width: 0, height: 0)
    private let previousOutput = ByteBuffer(capacity: 1024)
    private var hasPalette = false

    public init(options: Options = Options()) {
        self.options = options
        self.detector = SceneChangeDetector(threshold: options.sceneChangeThreshold)
    }

    /// Forgets the palette and the previous frame: the next frame is analysed from scratch.
    public func invalidate() {
        detector = SceneChangeDetector(threshold: options.sceneChangeThreshold)
        hasPalette = false
        previousSize = PixelSize(width: 0, height: 0)
        previousOutput.removeAll()
    }

    /// Appends one complete sixel image (DCS … ST) for `image` to `output`.
    ///
    /// The image height must be a multiple of 6 (``PictureGeometry`` sizes images that way) so
    /// the last band is full and the cursor lands where ``PictureGeometry`` expects.
    /// Place the cursor (CUP) at the image's top-left cell before these bytes.
    @discardableResult
    public func encode(_ image: PixelImage, into output: ByteBuffer,
                       repeatIdentical: Bool = false) throws(RenderError) -> FrameReport {
        guard image.height % 6 == 0 else { throw .heightNotMultipleOfSix(image.height) }
        if isIdenticalToPrevious(image) {
            statistics.framesIdentical += 1
            var report = FrameReport(outcome: .identical)
            if repeatIdentical {
                output.append(previousOutput)
                report.bytes = previousOutput.count
            }
            return report
        }
        var report = FrameReport(outcome: .encoded)
        let t0 = OutputWriter.monotonicNanoseconds()
        if detector.shouldRebuild(for: image) || !hasPalette {
            lookup.reset(Quantizer.palette(for: image, colors: options.colors))
            hasPalette = true
            report.paletteRebuilt = true
            statistics.paletteRebuilds += 1
        }
        let t1 = OutputWriter.monotonicNanoseconds()
        let pixels = image.width * image.height
        if indices.count < pixels { indices = [UInt8](repeating: 0, count: pixels) }
        let amplitude = Self.orderedAmplitude(colors: lookup.palette.count)
        let start = output.count
        indices.withUnsafeMutableBufferPointer { idx in
            guard let base = idx.baseAddress else { return }
            Ditherer.map(image, lookup: lookup, dither: options.dither, amplitude: amplitude, into: base)
            report.mapNanoseconds = OutputWriter.monotonicNanoseconds() - t1
            report.colorsUsed = rasterizer.write(indices: base, width: image.width, height: image.height,
                                                 palette: lookup.palette, output: output)
        }
        report.emitNanoseconds = OutputWriter.monotonicNanoseconds() - t1 - report.mapNanoseconds
        report.analyseNanoseconds = t1 - t0
        report.bytes = output.count - start
        previousOutput.removeAll()
        output.withUnsafeBytes { previousOutput.append(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        statistics.framesEncoded += 1
        return report
    }

    /// Ordered-dither strength: about half the typical distance between palette colours.
    static func orderedAmplitude(colors: Int) -> Int {
        Int((10.0 * Double(256 / max(2, colors))).squareRoot().rounded()) + 5
    }

    /// Compares `image` with the stored previous input and stores it when different.
    private func isIdenticalToPrevious(_ image: PixelImage) -> Bool {
        let rowBytes = image.width * image.format.bytesPerPixel
        let total = rowBytes * image.height
        let sameSize = previousSize == image.size && previousInput.count == total
        var identical = sameSize
        if previousInput.count != total { previousInput = [UInt8](repeating: 0, count: total) }
        image.withUnsafeBytes { raw in
            guard let src = raw.baseAddress else { return }
            previousInput.withUnsafeMutableBytes { prev in
                guard let dst = prev.baseAddress else { return }
                for y in 0..<image.height {
                    let s = src + y * image.stride, d = dst + y * rowBytes
                    if identical && memcmp(s, d, rowBytes) == 0 { continue }
                    identical = false
                    d.copyMemory(from: s, byteCount: rowBytes)
                }
            }
        }
        previousSize = image.size
        return identical && hasPalette
    }
}
