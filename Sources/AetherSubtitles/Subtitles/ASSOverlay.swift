import AetherBase
import AetherMedia
import CLibass
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What libass drew for one moment, composited once: premultiplied colour and coverage over
/// the bounding box of its images, in picture pixels. Blending it into a frame costs one pass
/// over that box, so a still overlay is not asked of libass again for every frame.
public struct ASSOverlayImage: Sendable {
    public let x: Int, y: Int, width: Int, height: Int
    /// Per pixel of the box: premultiplied r, g, b (0…255) and coverage (0…1).
    package let pixels: [Float]

    /// dst = dst × (1 − coverage) + colour, over the box, into an RGB24 picture.
    public func blend(into rgb: UnsafeMutableBufferPointer<UInt8>, width fw: Int, height fh: Int, stride: Int) {
        guard fw > 0, fh > 0, stride >= fw * 3, rgb.count >= stride * (fh - 1) + fw * 3 else { return }
        let x1 = min(fw, x + width), y1 = min(fh, y + height)
        guard x < x1, y < y1 else { return }
        pixels.withUnsafeBufferPointer { p in
            for row in y..<y1 {
                var o = row * stride + x * 3
                var i = ((row - y) * width) * 4
                for _ in x..<x1 {
                    let a = p[i + 3]
                    if a > 0 {
                        let k = 1 - a
                        rgb[o] = UInt8(min(255, Float(rgb[o]) * k + p[i] + 0.5))
                        rgb[o + 1] = UInt8(min(255, Float(rgb[o + 1]) * k + p[i + 1] + 0.5))
                        rgb[o + 2] = UInt8(min(255, Float(rgb[o + 2]) * k + p[i + 2] + 0.5))
                    }
                    o += 3
                    i += 4
                }
            }
        }
    }

    /// Same, into an RGB24 array of `width`×`height` (tight rows).
    public func blend(into rgb: inout [UInt8], width fw: Int, height fh: Int) {
        rgb.withUnsafeMutableBufferPointer { blend(into: $0, width: fw, height: fh, stride: fw * 3) }
    }

    /// Composites libass's image list (each an alpha bitmap with one colour, drawn in order)
    /// clipped to `width`×`height`; nil when it draws nothing.
    static func composite(_ first: UnsafeMutablePointer<ASS_Image>?, width fw: Int, height fh: Int) -> ASSOverlayImage? {
        var x0 = Int.max, y0 = Int.max, x1 = Int.min, y1 = Int.min
        var image = first
        while let img = image {
            let i = img.pointee
            if i.w > 0, i.h > 0, i.bitmap != nil, i.color & 0xFF != 0xFF {
                x0 = min(x0, max(0, Int(i.dst_x)))
                y0 = min(y0, max(0, Int(i.dst_y)))
                x1 = max(x1, min(fw, Int(i.dst_x) + Int(i.w)))
                y1 = max(y1, min(fh, Int(i.dst_y) + Int(i.h)))
            }
            image = i.next
        }
        guard x0 < x1, y0 < y1 else { return nil }
        let bw = x1 - x0, bh = y1 - y0
        var pixels = [Float](repeating: 0, count: bw * bh * 4)
        image = first
        while let img = image {
            let i = img.pointee
            image = i.next
            let opacity = Float(255 - Int(i.color & 0xFF)) / (255 * 255)
            guard opacity > 0, i.w > 0, i.h > 0, let bitmap = i.bitmap else { continue }
            let r = Float(i.color >> 24), g = Float((i.color >> 16) & 0xFF), b = Float((i.color >> 8) & 0xFF)
            let ix0 = max(x0, Int(i.dst_x)), iy0 = max(y0, Int(i.dst_y))
            let ix1 = min(x1, Int(i.dst_x) + Int(i.w)), iy1 = min(y1, Int(i.dst_y) + Int(i.h))
            guard ix0 < ix1, iy0 < iy1 else { continue }
            for y in iy0..<iy1 {
                let source = (y - Int(i.dst_y)) * Int(i.stride) - Int(i.dst_x)
                var o = ((y - y0) * bw + (ix0 - x0)) * 4
                for x in ix0..<ix1 {
                    let coverage = bitmap[source + x]
                    if coverage != 0 {
                        let a = Float(coverage) * opacity
                        let k = 1 - a
                        pixels[o] = pixels[o] * k + r * a
                        pixels[o + 1] = pixels[o + 1] * k + g * a
                        pixels[o + 2] = pixels[o + 2] * k + b * a
                        pixels[o + 3] = pixels[o + 3] * k + a
                    }
                    o += 4
                }
            }
        }
        return ASSOverlayImage(x: x0, y: y0, width: bw, height: bh, pixels: pixels)
    }
}

/// The selected text track drawn by libass, fed from the cues the engine decoded: one
/// ``ASSTrackRenderer`` per track (a new header or font set makes a new one), every cue given
/// to libass once (numbered here: a converted track's decoder restarts its numbering after a
/// seek, which libass would take for duplicates), the overlay composited again only when
/// libass's `detect_change` says the picture changed. One thread at a time.
public final class ASSOverlayRenderer {
    public let options: ASSStyleOptions
    private let shaping: ASSTrackRenderer.Shaping
    private let fontconfig: Bool
    private var track: ASSTrackRenderer?
    private var header: ASSHeader?
    private var fonts: ASSFontSet?
    private var size = (width: 0, height: 0)
    /// Events given to libass, as hashes of (start, end, event) (not the lines themselves).
    private var fed = Set<Int>()
    private var readOrder = 0
    /// The last composited overlay (nil: nothing showing).
    public private(set) var overlay: ASSOverlayImage?
    /// How many times libass's images were composited (tests: a still moment costs none).
    public private(set) var composites = 0

    public init(options: ASSStyleOptions = ASSStyleOptions(), shaping: ASSTrackRenderer.Shaping = .complex,
                fontconfig: Bool = true) {
        self.options = options
        self.shaping = shaping
        self.fontconfig = fontconfig
    }

    /// Brings ``overlay`` to time `seconds` for a `width`×`height` picture showing `cues` (the
    /// text cues of the selected track on screen then, on the cues' timeline) of a video decoded
    /// at `storage` (nil: the picture's size); returns whether it changed.
    @discardableResult
    public func update(cues: [SubtitleCue], atSeconds seconds: Double, width: Int, height: Int,
                       storage: (width: Int, height: Int)? = nil) -> Bool {
        guard width > 0, height > 0, seconds.isFinite else { return false }
        let sources = cues.compactMap { cue in cue.ass.map { (cue, $0) } }
        guard let first = sources.first?.1 else {
            guard overlay != nil else { return false }
            overlay = nil
            return true
        }
        if track == nil || !isCurrent(first.header) || first.fonts !== fonts || (!first.header.isNative && size != (width, height)) {
            guard makeTrack(first, width: width, height: height) else { return false }
        }
        guard let track else { return false }
        for (cue, source) in sources where isCurrent(source.header) {
            let start = Self.milliseconds(cue.start), end = Self.milliseconds(cue.end)
            var hasher = Hasher()
            hasher.combine(start)
            hasher.combine(end)
            hasher.combine(source.dedupKey)
            let key = hasher.finalize()
            guard !fed.contains(key), fed.count < ASSTrackRenderer.maxEvents else { continue }
            fed.insert(key)
            guard let comma = source.event.firstIndex(of: ",") else { continue }
            readOrder += 1
            var event = "\(readOrder)" + source.event[comma...]
            if let placement = cue.placement, !source.header.isNative {
                event = Self.placed(event, placement, playArea: options.playArea(aspect: Double(width) / Double(height)))
            }
            track.addEvent(Array(event.utf8), startMs: start, durationMs: max(0, end - start))
        }
        let sized = size != (width, height)
        size = (width, height)
        let (images, changed) = track.images(atMilliseconds: Self.milliseconds(seconds), width: width, height: height, storage: storage)
        guard changed || sized else { return false }
        overlay = ASSOverlayImage.composite(images, width: width, height: height)
        composites += 1
        return true
    }

    /// The same track's header: the same object, or the same bytes (cues fetched again after a
    /// seek come from another decoder of the same stream, with a header object of its own).
    private func isCurrent(_ other: ASSHeader) -> Bool {
        guard let header else { return false }
        return other === header || (other.isNative == header.isNative && other.bytes == header.bytes)
    }

    private func makeTrack(_ source: ASSSource, width: Int, height: Int) -> Bool {
        track = nil
        fed.removeAll()
        header = source.header
        fonts = source.fonts
        let bytes = source.header.isNative ? source.header.bytes : options.defaultHeader(aspect: Double(width) / Double(height))
        let fontList = (source.fonts?.fonts ?? []).map { (name: $0.name, data: $0.data) }
        guard let made = ASSTrackRenderer(header: bytes, fonts: fontList, fontconfig: fontconfig, shaping: shaping) else {
            ASSLog.receive(level: 1, line: "libass could not start: text subtitles are not drawn")
            return false
        }
        made.disableReadOrderCheck()
        AppLog.write("libass", "drawing a \(source.header.isNative ? "script" : "converted") track, \(fontList.count) attached font(s)")
        made.configure(options, native: source.header.isNative)
        track = made
        size = (0, 0)
        return true
    }

    /// `event` (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`) with the
    /// override that puts it at `placement` first in its text.
    static func placed(_ event: String, _ placement: CuePlacement, playArea: (x: Int, y: Int)) -> String {
        var commas = 0
        guard let textStart = event.firstIndex(where: { c in
            if c == "," { commas += 1 }
            return commas == 8
        }) else { return event }
        let text = event.index(after: textStart)
        return String(event[..<text]) + placement.assOverride(resX: playArea.x, resY: playArea.y) + event[text...]
    }

    static func milliseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64(max(-1e12, min(1e12, seconds * 1000)).rounded())
    }
}

/// Runs an ``ASSOverlayRenderer`` on a thread of its own so that the render thread never waits
/// on libass longer than it chooses: ``overlay(cues:atSeconds:width:height:budget:)`` hands
/// over the moment and waits at most `budget`; when libass is not done by then the last overlay
/// stands (the late one lands for a later frame) and the skip is counted and logged once.
public final class ASSOverlayWorker: Sendable {
    private struct Job {
        var serial: Int
        var cues: [SubtitleCue]
        var seconds: Double
        var width: Int
        var height: Int
        var storage: (width: Int, height: Int)?
    }
    private struct Work {
        var pending: Job?
        var serial = 0
        var doneSerial = 0
        var latest: ASSOverlayImage?
        var stopped = false
        var finished = false
        var skipped = 0
        /// Used by the worker thread alone, outside the lock.
        let renderer: ASSOverlayRenderer
    }
    private let work: GuardedCondition<Work>

    public init(options: ASSStyleOptions, shaping: ASSTrackRenderer.Shaping = .complex, fontconfig: Bool = true) {
        work = GuardedCondition(Work(renderer: ASSOverlayRenderer(options: options, shaping: shaping, fontconfig: fontconfig)))
        OSThread.start(name: "aether.libass", stackSize: 4 << 20) { [self] in run() }
    }

    /// Updates skipped because libass took longer than the budget.
    public var skippedUpdates: Int { work.withLock { $0.skipped } }

    /// Render thread: the overlay for this moment, or the last one when libass needs more than
    /// `budget` seconds.
    public func overlay(cues: [SubtitleCue], atSeconds seconds: Double, width: Int, height: Int,
                        storage: (width: Int, height: Int)? = nil, budget: Double) -> ASSOverlayImage? {
        let mine = work.update { w -> Int? in
            guard !w.stopped else { return nil }
            w.serial += 1
            w.pending = Job(serial: w.serial, cues: cues, seconds: seconds, width: width, height: height, storage: storage)
            return w.serial
        }
        guard let mine else { return nil }
        return work.withLock(when: { $0.doneSerial >= mine || $0.stopped }, timeout: max(0, budget)) { w, _ in
            if w.doneSerial < mine {
                w.skipped += 1
                if w.skipped == 1 {
                    ASSLog.receive(level: 1, line: "libass took longer than a frame (\(Int(budget * 1000)) ms): the last subtitles stay until it is done")
                }
            }
            return w.latest
        }
    }

    /// Stops and joins the thread (idempotent).
    public func stop() {
        work.update { $0.stopped = true }
        work.wait(until: { $0.finished }, deadline: nil)
    }

    private func run() {
        while true {
            let next = work.withLock(when: { $0.pending != nil || $0.stopped }) { w, _ -> (Job, ASSOverlayRenderer)? in
                if w.stopped { return nil }
                defer { w.pending = nil }
                return w.pending.map { ($0, w.renderer) }
            }
            guard let (job, renderer) = next else { break }
            renderer.update(cues: job.cues, atSeconds: job.seconds, width: job.width, height: job.height, storage: job.storage)
            let result = renderer.overlay
            work.update { w in
                w.latest = result
                w.doneSerial = job.serial
            }
        }
        work.update { $0.finished = true }
    }
}
