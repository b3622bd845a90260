import CFFmpeg
import Foundation
import Synchronization

/// Decodes subtitle packets as the demuxer reads them (every subtitle stream, so switching
/// tracks is instant), loads sidecar files whole, and answers "what is on screen at t".
/// Thread-safe: the demux thread adds, the UI thread reads.
public final class SubtitleStore: @unchecked Sendable {  // all mutable state behind `state`
    struct Track {
        var info: SubtitleTrackInfo
        var cues: [SubtitleCue] = []
    }

    struct State {
        var tracks: [Track] = []
        var selected: Int?
    }

    private let state = Mutex(State())
    /// Per-stream decoders, used on the demux thread only.
    private var decoders: [Int: CodecContext] = [:]
    private let videoWidth: Int
    private let videoHeight: Int
    /// Cues that began before a seek target are still on screen after it, but the demuxer starts
    /// reading at the target: a second demuxer reads the subtitle packets of the preceding
    /// `lookBehind` seconds, off the playback threads.
    static let lookBehind = 10.0
    private let url: String
    private let prefetchQueue = DispatchQueue(label: "aether.subtitles.prefetch")
    private var prefetchFormat: FormatContext?
    private var prefetchDecoders: [Int: CodecContext] = [:]
    private let prefetchGeneration = Atomic<Int>(0)

    init(info: MediaInfo) {
        url = info.url
        videoWidth = info.primaryVideo?.width ?? 0
        videoHeight = info.primaryVideo?.height ?? 0
        let tracks = info.subtitles.enumerated().map { n, s in
            Track(info: SubtitleTrackInfo(id: n, source: .embedded(streamIndex: s.index), codec: s.codec, kind: s.kind,
                                          language: s.tags.language, title: s.tags.title,
                                          isDefault: s.tags.isDefault, isForced: s.tags.isForced))
        }
        state.withLock { $0.tracks = tracks }
    }

    public var tracks: [SubtitleTrackInfo] { state.withLock { $0.tracks.map(\.info) } }
    public var selectedTrack: Int? { state.withLock { $0.selected } }

    public func select(_ id: Int?) {
        state.withLock { s in s.selected = id.flatMap { id in s.tracks.indices.contains(id) ? id : nil } }
    }

    /// The track to start with: the requested one, else a forced or default one.
    func initialTrack(requested: Int?, enabled: Bool) -> Int? {
        guard enabled else { return nil }
        let choice = state.withLock { s -> Int? in
            if let requested, s.tracks.indices.contains(requested) { return requested }
            return s.tracks.firstIndex { $0.info.isForced } ?? s.tracks.firstIndex { $0.info.isDefault }
        }
        select(choice)
        return choice
    }

    /// Cues of the selected track on screen at `time`, in start order.
    public func active(at time: Double) -> [SubtitleCue] {
        state.withLock { s in
            guard let id = s.selected else { return [] }
            return s.tracks[id].cues.filter { $0.start <= time && time < $0.end }
        }
    }

    /// All cues decoded so far for track `id` (tests, menus).
    public func cues(track id: Int) -> [SubtitleCue] {
        state.withLock { s in s.tracks.indices.contains(id) ? s.tracks[id].cues : [] }
    }

    func handles(streamIndex: Int) -> Bool {
        state.withLock { s in s.tracks.contains { $0.info.source == .embedded(streamIndex: streamIndex) } }
    }

    /// The demuxer moved to `time`: fetch the cues that started shortly before it.
    func seeked(to time: Double) {
        let hasEmbedded = state.withLock { s in s.tracks.contains { if case .embedded = $0.info.source { return true }; return false } }
        guard hasEmbedded else { return }
        let generation = prefetchGeneration.add(1, ordering: .relaxed).newValue
        prefetchQueue.async { [self] in
            guard prefetchGeneration.load(ordering: .relaxed) == generation else { return }  // superseded
            prefetch(around: time, generation: generation)
        }
    }

    /// Runs on `prefetchQueue` only.
    private func prefetch(around time: Double, generation: Int) {
        if prefetchFormat == nil {
            prefetchFormat = try? FormatContext(url: url, timeout: 5)
            guard let format = prefetchFormat else { return }
            for i in 0..<format.streamCount {
                guard let stream = format.stream(i) else { continue }
                let isSubtitle = stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE
                stream.pointee.discard = isSubtitle ? AVDISCARD_DEFAULT : AVDISCARD_ALL
            }
        }
        guard let format = prefetchFormat, let packet = try? Packet() else { return }
        try? format.seek(toSeconds: max(0, time - SubtitleStore.lookBehind))
        var packets = 0
        while packets < 2000, prefetchGeneration.load(ordering: .relaxed) == generation,
              (try? format.read(into: packet)) == true {
            defer { packet.unref() }
            packets += 1
            let index = packet.streamIndex
            guard let stream = format.stream(index), stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE,
                  let par = stream.pointee.codecpar else { continue }
            let tb = stream.pointee.time_base
            if let pts = packet.pts, Double(pts) * Double(tb.num) / Double(max(1, tb.den)) > time + 1 { break }
            if prefetchDecoders[index] == nil {
                prefetchDecoders[index] = try? CodecContext(parameters: par, timeBase: tb, threads: 1)
            }
            guard let decoder = prefetchDecoders[index] else { continue }
            insert(SubtitleStore.decode(packet, decoder: decoder, stream: stream, width: videoWidth, height: videoHeight),
                   streamIndex: index)
        }
    }

    /// Loads a sidecar (SRT, ASS, VTT …) as a new track and returns its id; nil if unreadable.
    @discardableResult
    public func addSidecar(path: String) -> Int? {
        guard let format = try? FormatContext(url: path, timeout: 5),
              let stream = (0..<format.streamCount).lazy.compactMap({ format.stream($0) })
                .first(where: { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE }),
              let par = stream.pointee.codecpar,
              let decoder = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1),
              let packet = try? Packet() else { return nil }
        var cues: [SubtitleCue] = []
        while (try? format.read(into: packet)) == true {
            if packet.streamIndex == Int(stream.pointee.index) {
                cues += SubtitleStore.decode(packet, decoder: decoder, stream: stream, width: videoWidth, height: videoHeight)
            }
            packet.unref()
        }
        let props = avcodec_descriptor_get(par.pointee.codec_id)?.pointee.props ?? 0
        let codec = String(cString: avcodec_get_name(par.pointee.codec_id))
        return state.withLock { s in
            let id = s.tracks.count
            var track = Track(info: SubtitleTrackInfo(
                id: id, source: .sidecar(path: path), codec: codec,
                kind: props & AV_CODEC_PROP_BITMAP_SUB != 0 ? .bitmap : .text,
                language: nil, title: nil, isDefault: false, isForced: false))
            track.cues = cues.sorted { $0.start < $1.start }
            s.tracks.append(track)
            return id
        }
    }

    /// Finds sidecar files next to `path` sharing its base name (`movie.srt`, `movie.en.ass`).
    public static func sidecarCandidates(for path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let base = url.deletingPathExtension().lastPathComponent
        let dir = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [] }
        let exts: Set<String> = ["srt", "ass", "ssa", "vtt", "sub"]
        return names.filter { name in
            let u = URL(fileURLWithPath: name)
            return exts.contains(u.pathExtension.lowercased()) && (name.hasPrefix(base + ".") )
        }.sorted().map { dir.appendingPathComponent($0).path }
    }

    /// Called on the demux thread with each subtitle packet.
    func add(packet: Packet, stream: UnsafeMutablePointer<AVStream>?) {
        guard let stream, let par = stream.pointee.codecpar else { return }
        let index = packet.streamIndex
        if decoders[index] == nil {
            decoders[index] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
        }
        guard let decoder = decoders[index] else { return }
        insert(SubtitleStore.decode(packet, decoder: decoder, stream: stream, width: videoWidth, height: videoHeight),
               streamIndex: index)
    }

    /// Adds decoded cues to the track of `streamIndex`, in start order, without duplicates.
    private func insert(_ cues: [SubtitleCue], streamIndex index: Int) {
        guard !cues.isEmpty else { return }
        state.withLock { s in
            guard let t = s.tracks.firstIndex(where: { $0.info.source == .embedded(streamIndex: index) }) else { return }
            for cue in cues {
                // Bitmap formats end a cue with an empty one: close the open cue instead.
                if case .bitmap(let b) = cue.content, b.rgba.isEmpty {
                    if let last = s.tracks[t].cues.indices.last, s.tracks[t].cues[last].end > cue.start {
                        s.tracks[t].cues[last].end = cue.start
                    }
                    continue
                }
                if s.tracks[t].cues.contains(where: { $0.start == cue.start && $0.content == cue.content }) { continue }
                let at = s.tracks[t].cues.firstIndex { $0.start > cue.start } ?? s.tracks[t].cues.count
                s.tracks[t].cues.insert(cue, at: at)
            }
        }
    }

    /// `avcodec_decode_subtitle2` with AetherEngine's timing rules: start = pts + start_display_time;
    /// end from end_display_time, else the packet duration, else 5 s.
    static func decode(_ packet: Packet, decoder: CodecContext, stream: UnsafeMutablePointer<AVStream>,
                       width: Int, height: Int) -> [SubtitleCue] {
        var sub = AVSubtitle()
        var got: Int32 = 0
        guard avcodec_decode_subtitle2(decoder.pointer, &sub, &got, packet.pointer) >= 0, got != 0 else { return [] }
        defer { avsubtitle_free(&sub) }
        let tb = stream.pointee.time_base
        let toSeconds = { (v: Int64) in Double(v) * Double(tb.num) / Double(max(1, tb.den)) }
        let pts = packet.pts.map(toSeconds) ?? (sub.pts != aether_AV_NOPTS_VALUE() ? Double(sub.pts) / 1e6 : 0)
        let start = pts + Double(sub.start_display_time) / 1000
        var end: Double
        if sub.end_display_time > sub.start_display_time, sub.end_display_time != UInt32.max {
            end = pts + Double(sub.end_display_time) / 1000
        } else if packet.duration > 0 {
            end = pts + toSeconds(packet.duration)
        } else {
            end = start + 5
        }
        var cues: [SubtitleCue] = []
        let frameW = width > 0 ? width : Int(decoder.pointer.pointee.width)
        let frameH = height > 0 ? height : Int(decoder.pointer.pointee.height)
        if sub.num_rects == 0 {
            // An empty bitmap event: clears what is showing.
            return [SubtitleCue(start: start, end: start, content: .bitmap(SubtitleBitmap(x: 0, y: 0, width: 0, height: 0, pixelWidth: 0, pixelHeight: 0, rgba: [])))]
        }
        for i in 0..<Int(sub.num_rects) {
            guard let rect = sub.rects[i] else { continue }
            switch rect.pointee.type {
            case SUBTITLE_ASS:
                if let ass = rect.pointee.ass {
                    let text = TextSanitizer.clean(ASSText.plain(fromEvent: String(cString: ass)), keepNewlines: true)
                    if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                        cues.append(SubtitleCue(start: start, end: end, content: .text(text)))
                    }
                }
            case SUBTITLE_TEXT:
                if let t = rect.pointee.text {
                    let text = TextSanitizer.clean(String(cString: t), keepNewlines: true)
                    if !text.isEmpty { cues.append(SubtitleCue(start: start, end: end, content: .text(text))) }
                }
            case SUBTITLE_BITMAP:
                if let bitmap = Self.bitmap(rect.pointee, frameWidth: frameW, frameHeight: frameH) {
                    cues.append(SubtitleCue(start: start, end: end, content: .bitmap(bitmap)))
                }
            default:
                continue
            }
        }
        return cues
    }

    /// The palette walk: indices in `data[0]`, a `[B,G,R,A]` palette in `data[1]`; cropped to the
    /// pixels with alpha ≥ 8 and written as premultiplied RGBA.
    static func bitmap(_ rect: AVSubtitleRect, frameWidth: Int, frameHeight: Int) -> SubtitleBitmap? {
        let w = Int(rect.w), h = Int(rect.h), stride = Int(rect.linesize.0)
        guard w > 0, h > 0, let indices = rect.data.0, let palette = rect.data.1 else { return nil }
        let colours = Int(max(0, rect.nb_colors))
        func alpha(_ i: Int) -> UInt8 { i < colours ? palette[i * 4 + 3] : 0 }
        var minX = w, minY = h, maxX = -1, maxY = -1
        for y in 0..<h {
            for x in 0..<w where alpha(Int(indices[y * stride + x])) >= 8 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        guard maxX >= minX, maxY >= minY else { return nil }
        let cw = maxX - minX + 1, ch = maxY - minY + 1
        var rgba = [UInt8](repeating: 0, count: cw * ch * 4)
        for y in 0..<ch {
            for x in 0..<cw {
                let i = Int(indices[(y + minY) * stride + x + minX])
                guard i < colours else { continue }
                let b = UInt16(palette[i * 4]), g = UInt16(palette[i * 4 + 1]), r = UInt16(palette[i * 4 + 2]), a = UInt16(palette[i * 4 + 3])
                let o = (y * cw + x) * 4
                rgba[o] = UInt8(r * a / 255); rgba[o + 1] = UInt8(g * a / 255); rgba[o + 2] = UInt8(b * a / 255); rgba[o + 3] = UInt8(a)
            }
        }
        let fw = Double(frameWidth > 0 ? frameWidth : Int(rect.x) + w)
        let fh = Double(frameHeight > 0 ? frameHeight : Int(rect.y) + h)
        return SubtitleBitmap(x: Double(Int(rect.x) + minX) / fw, y: Double(Int(rect.y) + minY) / fh,
                              width: Double(cw) / fw, height: Double(ch) / fh,
                              pixelWidth: cw, pixelHeight: ch, rgba: rgba)
    }
}
