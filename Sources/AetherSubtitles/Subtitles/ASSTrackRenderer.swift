import CLibass
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One selected ASS track rendered by libass into RGB pictures: owns its `ASS_Track` (freed
/// exactly once by `deinit`) and its ``ASSRenderer`` (which keeps the ``ASSLibrary`` alive).
///
/// Fed like mpv's sd_ass: the track's header (an embedded track's codec private data, FFmpeg's
/// `extradata`; a sidecar's `[Script Info]` and styles) once, then each event (a Matroska block,
/// `ReadOrder,Layer,Style,…,Text`) with its start and duration. libass drops duplicate events
/// itself (a re-read after a seek).
///
/// `render(into:…)` blends the images libass returns (alpha bitmaps with one RGBA colour each)
/// into an RGB24 picture. libass's `detect_change` says whether they differ from the last call:
/// when they do not, the caller's last blend stands (`changed == false`). One thread at a time.
/// The corresponding C functions are `ass_new_track`, `ass_process_codec_private`,
/// `ass_process_chunk`, `ass_set_frame_size`, `ass_set_storage_size`, `ass_render_frame` and
/// `ass_free_track`.
public final class ASSTrackRenderer {
    private let renderer: ASSRenderer
    private let track: UnsafeMutablePointer<ASS_Track>
    private var frameSize = (width: 0, height: 0)
    private var storageSize = (width: 0, height: 0)
    /// Events given to libass (bounded: past `maxEvents` new ones are dropped and logged once).
    public private(set) var eventCount = 0
    public static let maxEvents = 200_000
    /// Largest header or event read (bytes).
    public static let maxChunkBytes = 4 << 20

    /// - Parameters:
    ///   - header: the script's header (codec private data or a sidecar's text up to `[Events]`).
    ///   - fonts: attachments (name, bytes) given to libass before its fonts are loaded.
    /// libass's text shaper. `complex` (HarfBuzz: kerning, ligatures, Arabic and Indic scripts)
    /// is what mpv uses and the default; `simple` is what FFmpeg's `subtitles` filter gets (its
    /// `shaping` field is left at 0 = ASS_SHAPING_SIMPLE), kept for comparing with it.
    public enum Shaping { case simple, complex }

    public init?(header: [UInt8], fonts: [(name: String, data: [UInt8])] = [], fontconfig: Bool = true,
                 shaping: Shaping = .complex) {
        guard let library = ASSLibrary() else { return nil }
        for font in fonts { library.addFont(name: font.name, data: font.data) }
        guard let renderer = ASSRenderer(library: library), let track = ass_new_track(library.pointer) else { return nil }
        self.renderer = renderer
        self.track = track
        renderer.setFonts(family: nil, fontconfig: fontconfig)
        ass_set_shaper(renderer.pointer, shaping == .simple ? ASS_SHAPING_SIMPLE : ASS_SHAPING_COMPLEX)
        var bytes = Array(header.prefix(Self.maxChunkBytes))
        if !bytes.isEmpty {
            bytes.withUnsafeMutableBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                    ass_process_codec_private(track, $0, Int32(b.count))
                }
            }
        }
    }

    deinit { ass_free_track(track) }

    /// Turns off libass's own duplicate check (a caller that numbers events itself, as
    /// ``ASSOverlayRenderer`` does, need not pay for it).
    /// The corresponding C function is `ass_set_check_readorder`.
    func disableReadOrderCheck() { ass_set_check_readorder(track, 0) }

    /// Applies the options as mpv's sd_ass does: `--sub-scale` and `--sub-pos` on dialogue
    /// (always for converted subtitles, unless `--sub-ass-override=no` for scripts), and with
    /// `force` the options' style in place of the script's dialogue style.
    /// The corresponding C functions are `ass_set_font_scale`, `ass_set_line_position`,
    /// `ass_set_selective_style_override_enabled` and `ass_set_selective_style_override`.
    func configure(_ options: ASSStyleOptions, native: Bool) {
        let r = renderer.pointer
        let apply = !native || options.override != .no
        ass_set_font_scale(r, apply ? options.scale : 1)
        ass_set_line_position(r, apply ? max(0, min(100, 100 - options.position)) : 0)
        guard native else { return }
        switch options.override {
        case .no:
            ass_set_selective_style_override_enabled(r, 0)
        case .yes:
            ass_set_selective_style_override_enabled(r, Int32(ASS_OVERRIDE_BIT_SELECTIVE_FONT_SCALE.rawValue))
        case .force:
            var style = ASS_Style()
            let name = strdup(options.font)
            defer { free(name) }
            style.FontName = name
            style.FontSize = options.fontSize
            let c = options.color
            style.PrimaryColour = (c & 0xFFFF_FF00) | (255 - (c & 0xFF))   // RRGGBB + transparency
            style.SecondaryColour = 0xFF00_0000
            style.OutlineColour = 0x0000_0000
            style.BackColour = 0x0000_0080
            style.BorderStyle = 1
            style.Outline = options.borderSize
            style.Alignment = 2
            style.MarginL = 25
            style.MarginR = 25
            style.MarginV = 22
            style.ScaleX = 1
            style.ScaleY = 1
            ass_set_selective_style_override(r, &style)
            ass_set_selective_style_override_enabled(
                r, Int32(ASS_OVERRIDE_BIT_STYLE.rawValue | ASS_OVERRIDE_BIT_SELECTIVE_FONT_SCALE.rawValue))
        }
    }

    /// The images libass draws at `ms` for a `width`×`height` picture of a video stored at
    /// `storage` (its decoded size; nil: the picture's): `PlayResX/Y` scale to the picture, and
    /// what libass measures in storage pixels (aspect, unscaled borders) to the source, as mpv
    /// sets them. Whether they differ from the last call's. Valid until the next call.
    /// The corresponding C functions are `ass_set_frame_size`, `ass_set_storage_size` and `ass_render_frame`.
    func images(atMilliseconds ms: Int64, width: Int, height: Int,
                storage: (width: Int, height: Int)? = nil) -> (first: UnsafeMutablePointer<ASS_Image>?, changed: Bool) {
        var resized = false
        var stored = (width: width, height: height)
        if let storage, (1...16384).contains(storage.width), (1...16384).contains(storage.height) { stored = storage }
        if frameSize != (width, height) || storageSize != stored {
            ass_set_frame_size(renderer.pointer, Int32(width), Int32(height))
            ass_set_storage_size(renderer.pointer, Int32(stored.width), Int32(stored.height))
            frameSize = (width, height)
            storageSize = stored
            resized = true
        }
        var change: Int32 = 0
        let first = ass_render_frame(renderer.pointer, track, ms, &change)
        return (first, change != 0 || resized)
    }

    /// Events libass holds (it keeps one per ReadOrder: a re-read block is dropped).
    public var trackEventCount: Int { Int(track.pointee.n_events) }

    /// Adds one event (a Matroska-style ASS block) shown from `startMs` for `durationMs`.
    public func addEvent(_ data: [UInt8], startMs: Int64, durationMs: Int64) {
        guard !data.isEmpty, data.count <= Self.maxChunkBytes, durationMs >= 0 else { return }
        guard eventCount < Self.maxEvents else {
            if eventCount == Self.maxEvents { ASSLog.receive(level: 1, line: "more than \(Self.maxEvents) events: the rest are dropped") }
            eventCount = Self.maxEvents + 1
            return
        }
        var bytes = data
        bytes.withUnsafeMutableBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                ass_process_chunk(track, $0, Int32(b.count), startMs, durationMs)
            }
        }
        eventCount += 1
    }

    /// Renders time `ms` at `width`×`height` and, when libass's images changed since the last
    /// call (or the size did), blends them into `rgb` (RGB24, `stride` bytes a row); returns
    /// whether it blended. The caller keeps the unblended picture to blend again.
    @discardableResult
    public func render(atMilliseconds ms: Int64, into rgb: UnsafeMutableBufferPointer<UInt8>,
                       width: Int, height: Int, stride: Int, force: Bool = false) -> Bool {
        guard width > 0, height > 0, stride >= width * 3, rgb.count >= stride * (height - 1) + width * 3 else { return false }
        var resized = false
        if frameSize != (width, height) {
            ass_set_frame_size(renderer.pointer, Int32(width), Int32(height))
            ass_set_storage_size(renderer.pointer, Int32(width), Int32(height))
            frameSize = (width, height)
            resized = true
        }
        var change: Int32 = 0
        var image = ass_render_frame(renderer.pointer, track, ms, &change)
        guard change != 0 || resized || force else { return false }
        while let img = image {
            Self.blend(img.pointee, into: rgb, width: width, height: height, stride: stride)
            image = img.pointee.next
        }
        return true
    }

    /// One libass image: `color` is RRGGBBAA with AA the transparency; each bitmap byte is the
    /// glyph's coverage. dst += (src − dst) × coverage × opacity, rounded.
    static func blend(_ img: ASS_Image, into rgb: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int, stride: Int) {
        let opacity = 255 - Int(img.color & 0xFF)
        guard opacity > 0, let bitmap = img.bitmap, img.w > 0, img.h > 0 else { return }
        let r = Int(img.color >> 24), g = Int((img.color >> 16) & 0xFF), b = Int((img.color >> 8) & 0xFF)
        let x0 = max(0, Int(img.dst_x)), y0 = max(0, Int(img.dst_y))
        let x1 = min(width, Int(img.dst_x) + Int(img.w)), y1 = min(height, Int(img.dst_y) + Int(img.h))
        guard x0 < x1, y0 < y1 else { return }
        let sourceStride = Int(img.stride)
        for y in y0..<y1 {
            let row = (y - Int(img.dst_y)) * sourceStride - Int(img.dst_x)
            var o = y * stride + x0 * 3
            for x in x0..<x1 {
                let k = Int(bitmap[row + x]) * opacity  // 0…65025
                if k != 0 {
                    rgb[o] = UInt8((Int(rgb[o]) * (65025 - k) + r * k + 32512) / 65025)
                    rgb[o + 1] = UInt8((Int(rgb[o + 1]) * (65025 - k) + g * k + 32512) / 65025)
                    rgb[o + 2] = UInt8((Int(rgb[o + 2]) * (65025 - k) + b * k + 32512) / 65025)
                }
                o += 3
            }
        }
    }
}
