import AetherBase
import AetherMedia
import AetherStreaming
import CFFmpeg
import Foundation
import Synchronization

/// Decodes the selected subtitle track's packets as the demuxer reads them, loads sidecar files
/// whole, and answers "what is on screen at t".
///
/// Bounded whatever the file does: cues are kept for the selected track only (switching tracks
/// refetches the new one's recent cues off the playback threads), embedded cues older than
/// `keepBehind` seconds before the demuxer are pruned, each track holds at most `maxCues` cues and
/// `maxBitmapBytes` of bitmaps, a text cue is cut at `maxCueCharacters`, and a bitmap cue is
/// cropped to its opaque pixels and refused past `maxBitmapSide`. Insertion is a binary search.
/// Thread-safe: the demux thread adds, the UI thread reads.
public final class SubtitleStore: @unchecked Sendable {  // all mutable state behind `state`; decoders on their threads
    struct Track {
        var info: SubtitleTrackInfo
        var cues: [SubtitleCue] = []
        var bitmapBytes = 0
        /// Longest cue so far: how far back from `t` a cue showing at `t` can start.
        var longest = 0.0
    }

    struct State {
        var tracks: [Track] = []
        var selected: Int?
        var insertsSincePrune = 0
    }

    static let maxCues = 20_000
    static let maxBitmapBytes = 64 << 20
    static let maxCueCharacters = 4_000
    /// Largest subtitle canvas side scanned (PGS is 1920×1080; DVB up to 4096).
    static let maxBitmapSide = 8192
    /// Embedded cues ending this long before the demuxer's position are dropped.
    static let keepBehind = 120.0
    /// Longest a cue may last (teletext-style "until replaced" cues are cut here).
    static let maxCueDuration = 600.0
    /// Sidecar files larger than this are refused (a film's SRT is well under 1 MiB).
    public static let maxSidecarBytes = 64 << 20

    private let state = Guarded(State())
    /// Per-stream decoders, used on the demux thread only.
    private var decoders: [Int: CodecContext] = [:]
    private let videoWidth: Int
    private let videoHeight: Int
    /// The file's attached fonts, handed to libass with every text cue.
    public let fonts: ASSFontSet?
    /// Cues that began before a seek target are still on screen after it, but the demuxer starts
    /// reading at the target: a second demuxer reads the subtitle packets of the preceding
    /// `lookBehind` seconds, off the playback threads.
    static let lookBehind = 10.0
    private let url: String
    private let openOptions: [String: String]
    private let timeline: Timeline
    /// Sidecar text that is not UTF-8 is read in this code page (`--sub-codepage`).
    let fallbackCodepage: String
    private let prefetchQueue = DispatchQueue(label: "aether.subtitles.prefetch")
    private var prefetchFormat: FormatContext?
    private var prefetchDecoders: [Int: CodecContext] = [:]
    private let prefetchGeneration = Atomic<Int>(0)
    /// Cancels the look-behind reader's blocking I/O from any thread (`close()`).
    private let prefetchInterrupt = InterruptToken()

    /// - Parameters:
    ///   - url: the source exactly as opened (not the sanitised name), for the look-behind reader.
    ///   - openOptions: what the source was opened with (HTTP headers, protocol whitelist).
    package init(info: MediaInfo, url: String, openOptions: [String: String] = [:], timeline: Timeline,
         codepage: String = "CP1252", fonts: ASSFontSet? = nil) {
        self.fonts = fonts
        self.url = url
        self.openOptions = openOptions
        self.timeline = timeline
        fallbackCodepage = codepage
        videoWidth = info.primaryVideo?.width ?? 0
        videoHeight = info.primaryVideo?.height ?? 0
        let tracks = info.subtitles.enumerated().map { n, s in
            Track(info: SubtitleTrackInfo(id: n, source: .embedded(streamIndex: s.index), codec: s.codec, kind: s.kind,
                                          language: s.tags.language, title: s.tags.title,
                                          isDefault: s.tags.isDefault, isForced: s.tags.isForced))
        }
        state.withLock { $0.tracks = tracks }
    }

    /// A store for tests: the tracks of `info`, no source to read.
    convenience init(info: MediaInfo) { self.init(info: info, url: "", timeline: Timeline(origin: 0)) }

    public var tracks: [SubtitleTrackInfo] { state.withLock { $0.tracks.map(\.info) } }
    public var selectedTrack: Int? { state.withLock { $0.selected } }

    /// Selects track `id` (nil = off). Embedded cues of other tracks are dropped; the new track's
    /// cues from `lookBehind` before `position` up to `readAhead` are fetched off the playback
    /// threads (the demuxer only decodes the selected track from here on).
    public func select(_ id: Int?, position: Double? = nil, readAhead: Double? = nil) {
        let fetch = state.withLock { s -> Bool in
            let new = id.flatMap { id in s.tracks.indices.contains(id) ? id : nil }
            guard new != s.selected else { return false }
            s.selected = new
            for i in s.tracks.indices where i != new {
                if case .embedded = s.tracks[i].info.source {
                    s.tracks[i].cues = []
                    s.tracks[i].bitmapBytes = 0
                    s.tracks[i].longest = 0
                }
            }
            guard let new, case .embedded = s.tracks[new].info.source else { return false }
            return true
        }
        if fetch, let position { seeked(to: position, readAhead: readAhead ?? position) }
    }

    /// The track to start with: the requested one, else the first in a preferred language
    /// (`languages`, most wanted first), else a forced or default one.
    package func initialTrack(requested: Int?, enabled: Bool, languages: [String] = []) -> Int? {
        guard enabled else { return nil }
        let choice = state.withLock { s -> Int? in
            if let requested, s.tracks.indices.contains(requested) { return requested }
            if let match = LanguagePreference.first(of: languages, in: s.tracks.map(\.info.language)) { return match }
            return s.tracks.firstIndex { $0.info.isForced } ?? s.tracks.firstIndex { $0.info.isDefault }
        }
        select(choice)
        return choice
    }

    /// At most this many cues are returned by `active(at:)` (the latest-starting ones).
    public static let maxActive = 8

    /// Cues of the selected track on screen at `time`, in start order.
    /// `limit` (default ``maxActive``) caps how many: libass asks for more (typesetting puts
    /// hundreds of signs on screen at once).
    public func active(at time: Double, limit: Int = SubtitleStore.maxActive) -> [SubtitleCue] {
        state.withLock { s in
            guard let id = s.selected else { return [] }
            var found: [SubtitleCue] = []
            SubtitleStore.forEachShowing(s.tracks[id], at: time) { cue in
                found.append(cue)
                return found.count < max(1, limit)
            }
            return found.reversed()
        }
    }

    /// The next time after `time` at which the selected track's active cues change (a cue
    /// starts or one showing ends), or nil when none will: a host sleeps until then.
    public func nextChange(after time: Double) -> Double? {
        state.withLock { s in
            guard let id = s.selected else { return nil }
            let cues = s.tracks[id].cues
            let i = SubtitleStore.upperBound(cues, time)
            var next = i < cues.count ? cues[i].start : Double.infinity
            SubtitleStore.forEachShowing(s.tracks[id], at: time) { cue in
                next = min(next, cue.end)
                return true
            }
            return next.isFinite ? next : nil
        }
    }

    /// Calls `body` with each cue of `track` showing at `time`, latest start first, while it
    /// returns true. Only cues that can still show are looked at: none lasts longer than
    /// `track.longest`.
    private static func forEachShowing(_ track: Track, at time: Double, _ body: (SubtitleCue) -> Bool) {
        let cues = track.cues
        var i = upperBound(cues, time)  // first cue starting after `time`
        let earliest = time - track.longest
        while i > 0 {
            i -= 1
            let cue = cues[i]
            if cue.start < earliest { break }
            if time < cue.end, !body(cue) { return }
        }
    }

    /// Index of the first cue starting after `time` (cues are in start order).
    private static func upperBound(_ cues: [SubtitleCue], _ time: Double) -> Int {
        var lo = 0, hi = cues.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if cues[mid].start <= time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// All cues held for track `id` (tests, menus).
    public func cues(track id: Int) -> [SubtitleCue] {
        state.withLock { s in s.tracks.indices.contains(id) ? s.tracks[id].cues : [] }
    }

    /// True when the demuxer should decode this stream's packets: it is the selected track.
    package func handles(streamIndex: Int) -> Bool {
        state.withLock { s in
            guard let id = s.selected else { return false }
            return s.tracks[id].info.source == .embedded(streamIndex: streamIndex)
        }
    }

    /// The demuxer moved to `time`: fetch the cues that started shortly before it (up to
    /// `readAhead`, where the demuxer will take over).
    package func seeked(to time: Double, readAhead: Double? = nil) {
        guard !url.isEmpty, let stream = state.withLock({ s -> Int? in
            guard let id = s.selected, case .embedded(let index) = s.tracks[id].info.source else { return nil }
            return index
        }) else { return }
        let generation = prefetchGeneration.add(1, ordering: .relaxed).newValue
        let until = max(time, readAhead ?? time) + 1
        prefetchQueue.async { [self] in
            guard prefetchGeneration.load(ordering: .relaxed) == generation else { return }  // superseded
            prefetch(stream: stream, from: time - SubtitleStore.lookBehind, until: until, generation: generation)
        }
    }

    /// Stops a look-behind read in flight and closes its demuxer (the session is ending).
    package func close() {
        prefetchGeneration.add(1, ordering: .relaxed)
        prefetchInterrupt.cancel()
        prefetchQueue.sync { prefetchFormat = nil; prefetchDecoders = [:] }
    }

    /// Runs on `prefetchQueue` only.
    private func prefetch(stream wanted: Int, from start: Double, until: Double, generation: Int) {
        if prefetchFormat == nil {
            guard SourceOptions.isReopenable(url) else { return }  // a second reader would take the pipe's bytes
            prefetchFormat = try? FormatContext(url: url, options: openOptions, timeout: 5, interrupt: prefetchInterrupt)
            guard let format = prefetchFormat else { return }
            for i in 0..<format.streamCount {
                guard let stream = format.stream(i) else { continue }
                let isSubtitle = stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE
                stream.pointee.discard = isSubtitle ? AVDISCARD_DEFAULT : AVDISCARD_ALL
            }
        }
        guard let format = prefetchFormat, let packet = try? Packet() else { return }
        try? format.seek(toSeconds: max(0, start))
        var packets = 0
        format.interrupt.arm(seconds: 10)
        defer { format.interrupt.arm(seconds: nil) }
        while packets < 20_000, prefetchGeneration.load(ordering: .relaxed) == generation,
              (try? format.read(into: packet)) == true {
            defer { packet.unref() }
            packets += 1
            let index = packet.streamIndex
            guard index == wanted, let stream = format.stream(index), let par = stream.pointee.codecpar else { continue }
            if let pts = timeline.seconds(packet.pts, stream.pointee.time_base), pts > until { break }
            if prefetchDecoders[index] == nil {
                prefetchDecoders[index] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
            }
            guard let decoder = prefetchDecoders[index] else { continue }
            insert(SubtitleStore.decode(packet, decoder: decoder, stream: stream, timeline: timeline,
                                        width: videoWidth, height: videoHeight),
                   streamIndex: index, position: nil)
        }
    }

    /// Why a sidecar could not be loaded.
    public struct SidecarError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Loads a sidecar (SRT, ASS, VTT …) as a new track and returns its id.
    ///
    /// Only regular files up to `maxSidecarBytes` are read (a FIFO named `movie.srt` would block
    /// forever), with a deadline; text that is not UTF-8 is converted from `fallbackCodepage`.
    @discardableResult
    public func addSidecar(path: String) throws(SidecarError) -> Int {
        let name = TextSanitizer.clean(path)
        if NetworkSettings.isNetwork(path) { return try addNetworkSidecar(url: path) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SidecarError(description: "subtitle file '\(name)' is not a regular file")
        }
        guard Int(info.st_size) <= SubtitleStore.maxSidecarBytes else {
            throw SidecarError(description: "subtitle file '\(name)' is too large (\(info.st_size) bytes)")
        }
        let codepage = SubtitleStore.isUTF8(path: path) ? nil : fallbackCodepage
        let format: FormatContext
        do {
            format = try FormatContext(url: "file:" + path, options: ["protocol_whitelist": "file"], timeout: 5)
        } catch {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(error.message)")
        }
        return try addSidecar(format: format, name: name, path: path, codepage: codepage)
    }

    /// A sidecar over the network: fetched whole (with the source's headers, at most
    /// `maxSidecarBytes`), then demuxed from memory.
    private func addNetworkSidecar(url: String) throws(SidecarError) -> Int {
        let name = TextSanitizer.clean(url)
        let bytes: [UInt8]
        do {
            bytes = try SmallFetch.bytes(url, options: openOptions, settings: NetworkSettings(), interrupt: InterruptToken(),
                                         timeout: 10, limit: SubtitleStore.maxSidecarBytes)
        } catch {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(error.message)")
        }
        let codepage = String(validating: bytes, as: UTF8.self) != nil ? nil : fallbackCodepage
        let format: FormatContext
        do { format = try FormatContext(bytes: bytes) } catch {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(error.message)")
        }
        return try addSidecar(format: format, name: name, path: url, codepage: codepage)
    }

    /// A subtitle document already in memory (a DASH text set's WebVTT files joined), as a
    /// sidecar track tagged with `language`.
    package func addDocument(_ bytes: [UInt8], name: String, path: String, language: String?) throws(SidecarError) -> Int {
        guard bytes.count <= SubtitleStore.maxSidecarBytes else {
            throw SidecarError(description: "subtitle file '\(TextSanitizer.clean(name))' is too large (\(bytes.count) bytes)")
        }
        let format: FormatContext
        do { format = try FormatContext(bytes: bytes) } catch {
            throw SidecarError(description: "cannot read subtitle file '\(TextSanitizer.clean(name))': \(error.message)")
        }
        return try addSidecar(format: format, name: TextSanitizer.clean(name), path: path, codepage: nil,
                              language: language.map { TextSanitizer.clean(String($0.prefix(32))) })
    }

    private func addSidecar(format: FormatContext, name: String, path: String, codepage: String?,
                            language: String? = nil) throws(SidecarError) -> Int {
        guard let stream = (0..<format.streamCount).lazy.compactMap({ format.stream($0) })
                .first(where: { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE }),
              let par = stream.pointee.codecpar else {
            throw SidecarError(description: "'\(name)' holds no subtitles")
        }
        let decoder: CodecContext
        do {
            decoder = try CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1) { ctx in
                if let codepage { av_opt_set(ctx, "sub_charenc", codepage, 0) }
            }
        } catch {
            throw SidecarError(description: "cannot decode subtitle file '\(name)': \(error.message)")
        }
        guard let packet = try? Packet() else { throw SidecarError(description: "out of memory") }
        var cues: [SubtitleCue] = []
        format.interrupt.arm(seconds: 10)
        while cues.count < SubtitleStore.maxCues, (try? format.read(into: packet)) == true {
            if packet.streamIndex == Int(stream.pointee.index) {
                // A sidecar's times are on the film's timeline as they stand.
                cues += SubtitleStore.decode(packet, decoder: decoder, stream: stream, timeline: format.timeline,
                                             width: videoWidth, height: videoHeight, origin: 0)
            }
            packet.unref()
        }
        format.interrupt.arm(seconds: nil)
        let props = avcodec_descriptor_get(par.pointee.codec_id)?.pointee.props ?? 0
        let codec = String(cString: avcodec_get_name(par.pointee.codec_id))
        return state.withLock { s in
            let id = s.tracks.count
            var track = Track(info: SubtitleTrackInfo(
                id: id, source: .sidecar(path: path), codec: codec,
                kind: props & AV_CODEC_PROP_BITMAP_SUB != 0 ? .bitmap : .text,
                language: language, title: nil, isDefault: false, isForced: false))
            track.cues = stampFonts(cues).filter { !$0.isClear }.sorted { $0.start < $1.start }
            track.longest = track.cues.map { $0.end - $0.start }.max() ?? 0
            s.tracks.append(track)
            return id
        }
    }

    /// True when the first 1 MiB of the file is valid UTF-8 (a cut multi-byte character at the
    /// end of the sample is allowed).
    static func isUTF8(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 1 << 20) else { return true }
        var bytes = [UInt8](data)
        if bytes.count == 1 << 20 {
            while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
            if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
        }
        return String(validating: bytes, as: UTF8.self) != nil
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

    /// Called on the demux thread with each packet of the selected track; `position` is the
    /// demuxer's media time (older cues are pruned against it).
    package func add(packet: Packet, stream: UnsafeMutablePointer<AVStream>?, position: Double?) {
        guard let stream, let par = stream.pointee.codecpar else { return }
        let index = packet.streamIndex
        if decoders[index] == nil {
            decoders[index] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
        }
        guard let decoder = decoders[index] else { return }
        insert(SubtitleStore.decode(packet, decoder: decoder, stream: stream, timeline: timeline,
                                    width: videoWidth, height: videoHeight),
               streamIndex: index, position: position)
    }

    /// Adds decoded cues to the track of `streamIndex`, in start order, without duplicates, within
    /// the track's bounds.
    func insert(_ cues: [SubtitleCue], streamIndex index: Int, position: Double?) {
        guard !cues.isEmpty else { return }
        let cues = stampFonts(cues)
        state.withLock { s in
            guard let t = s.tracks.firstIndex(where: { $0.info.source == .embedded(streamIndex: index) }),
                  t == s.selected else { return }
            for cue in cues {
                // Bitmap formats end a cue with an empty one: close the open cue instead.
                if cue.isClear {
                    let at = SubtitleStore.upperBound(s.tracks[t].cues, cue.start)
                    if at > 0, s.tracks[t].cues[at - 1].end > cue.start { s.tracks[t].cues[at - 1].end = cue.start }
                    continue
                }
                let at = SubtitleStore.upperBound(s.tracks[t].cues, cue.start)
                var j = at
                var duplicate = false
                while j > 0, s.tracks[t].cues[j - 1].start == cue.start {
                    j -= 1
                    // Same text and, for ASS, the same event (typesetting layers one text several times).
                    let other = s.tracks[t].cues[j]
                    if other.content == cue.content, other.ass?.dedupKey == cue.ass?.dedupKey { duplicate = true; break }
                }
                if duplicate { continue }
                s.tracks[t].cues.insert(cue, at: at)
                s.tracks[t].bitmapBytes += cue.bitmapBytes
                s.tracks[t].longest = max(s.tracks[t].longest, cue.end - cue.start)
                s.insertsSincePrune += 1
            }
            if s.insertsSincePrune >= 256 || s.tracks[t].cues.count > SubtitleStore.maxCues
                || s.tracks[t].bitmapBytes > SubtitleStore.maxBitmapBytes {
                s.insertsSincePrune = 0
                SubtitleStore.prune(&s.tracks[t], before: position.map { $0 - SubtitleStore.keepBehind })
            }
        }
    }

    /// The cues with the file's fonts attached to their ASS source.
    private func stampFonts(_ cues: [SubtitleCue]) -> [SubtitleCue] {
        guard let fonts else { return cues }
        return cues.map { cue in
            var cue = cue
            cue.ass?.fonts = fonts
            return cue
        }
    }

    /// Drops cues that ended before `cutoff`, then the oldest ones past the count and byte caps.
    private static func prune(_ track: inout Track, before cutoff: Double?) {
        if let cutoff {
            track.cues.removeAll { $0.end < cutoff }
        }
        let drop = max(0, track.cues.count - maxCues)
        var bytes = track.cues[drop...].reduce(0) { $0 + $1.bitmapBytes }
        var end = drop
        while end < track.cues.count, bytes > maxBitmapBytes {
            bytes -= track.cues[end].bitmapBytes
            end += 1
        }
        if end > 0 { track.cues.removeFirst(end) }
        track.bitmapBytes = bytes
    }

    /// `avcodec_decode_subtitle2` with AetherEngine's timing rules: start = pts + start_display_time;
    /// end from end_display_time, else the packet duration, else 5 s.
    static func decode(_ packet: Packet, decoder: CodecContext, stream: UnsafeMutablePointer<AVStream>,
                       timeline: Timeline, width: Int, height: Int, origin: Double? = nil) -> [SubtitleCue] {
        decode(packet, decoder: decoder, timeBase: stream.pointee.time_base, timeline: timeline,
               width: width, height: height, origin: origin)
    }

    static func decode(_ packet: Packet, decoder: CodecContext, timeBase tb: AVRational,
                       timeline: Timeline, width: Int, height: Int, origin: Double? = nil) -> [SubtitleCue] {
        if decoder.pointer.pointee.codec_id == AV_CODEC_ID_HDMV_PGS_SUBTITLE, let data = packet.pointer.pointee.data,
           PGSObjects.largestSide(UnsafeBufferPointer(start: data, count: Int(max(0, packet.pointer.pointee.size)))) > maxBitmapSide {
            // libavcodec would allocate the whole canvas (twice) before we could refuse it.
            FFmpegLog.write("sub", "a PGS object larger than \(maxBitmapSide) pixels a side is left out")
            return []
        }
        var sub = AVSubtitle()
        var got: Int32 = 0
        var result = avcodec_decode_subtitle2(decoder.pointer, &sub, &got, packet.pointer)
        if result < 0, let converted = windows1252Packet(packet, decoder: decoder) {
            // Text decoders refuse text that is not UTF-8 (an embedded track muxed from a
            // Windows-1252 file): read it as Windows-1252 instead of losing the cue.
            result = avcodec_decode_subtitle2(decoder.pointer, &sub, &got, converted.pointer)
        }
        guard result >= 0, got != 0 else { return [] }
        defer { avsubtitle_free(&sub) }
        let line = origin.map { Timeline(origin: $0) } ?? timeline
        guard let pts = line.seconds(packet.pts, tb) ?? line.seconds(sub.pts, AVRational(num: 1, den: AV_TIME_BASE)),
              pts.sane(in: -1e9...1e9) != nil else { return [] }
        let start = pts + Double(sub.start_display_time) / 1000
        var end: Double
        if sub.end_display_time > sub.start_display_time, sub.end_display_time != UInt32.max {
            end = pts + Double(sub.end_display_time) / 1000
        } else if packet.duration > 0, let d = Timeline.sourceSeconds(packet.duration, tb) {
            end = pts + d
        } else {
            end = start + 5
        }
        end = min(end, start + maxCueDuration)
        var cues: [SubtitleCue] = []
        let frameW = width > 0 ? width : Int(decoder.pointer.pointee.width)
        let frameH = height > 0 ? height : Int(decoder.pointer.pointee.height)
        let placement = decoder.pointer.pointee.codec_id == AV_CODEC_ID_WEBVTT ? CuePlacement.webVTT(packet.pointer) : nil
        if sub.num_rects == 0 {
            // An empty bitmap event: clears what is showing.
            return [SubtitleCue(start: start, end: start, content: .bitmap(SubtitleBitmap(x: 0, y: 0, width: 0, height: 0, pixelWidth: 0, pixelHeight: 0, rgba: [])))]
        }
        for i in 0..<Int(sub.num_rects) {
            guard let rect = sub.rects[i] else { continue }
            switch rect.pointee.type {
            case SUBTITLE_ASS:
                if let ass = rect.pointee.ass {
                    var styled = ASSEvent.parse(limitedCString(ass), script: decoder.assScript)
                    if let placement {
                        styled.alignment = placement.alignment
                        styled.position = placement.position
                    }
                    let text = limited(styled.plainText)
                    let source = decoder.assHeader.map { ASSSource(header: $0, event: limitedEvent(ass)) }
                    if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                        if text != styled.plainText { styled.runs = [StyledSubtitle.Run(text: text)] }  // cut: plain
                        var cue = SubtitleCue(start: start, end: end, content: .text(text), styled: styled, ass: source)
                        cue.placement = placement
                        cues.append(cue)
                    } else if let source {
                        // No text (a drawing, a sign made of shapes): only libass can show it;
                        // text cells leave it out (``SubtitleCue/hasVisibleText``).
                        cues.append(SubtitleCue(start: start, end: end, content: .text(""), styled: nil, ass: source))
                    }
                }
            case SUBTITLE_TEXT:
                if let t = rect.pointee.text {
                    let text = limited(TextSanitizer.clean(limitedCString(t), keepNewlines: true))
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

    /// An event line for libass, read no further than ``ASSSource/maxEventBytes`` (cut there).
    static func limitedEvent(_ p: UnsafePointer<CChar>) -> String {
        let n = strnlen(p, ASSSource.maxEventBytes)
        return p.withMemoryRebound(to: UInt8.self, capacity: n) {
            let bytes = UnsafeBufferPointer(start: $0, count: n)
            return String(validating: bytes, as: UTF8.self) ?? windows1252(bytes)
        }
    }

    /// At most `maxCueCharacters` of a cue's text (a 4 MiB line is cut, marked with `…`).
    static func limited(_ text: String) -> String {
        guard text.unicodeScalars.count > maxCueCharacters else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(maxCueCharacters))) + "…"
    }

    /// A C string read no further than 4 × `maxCueCharacters` bytes. Text that is not UTF-8
    /// (an embedded SubRip track muxed from a Windows-1252 file) is read as Windows-1252 rather
    /// than turned into replacement characters.
    static func limitedCString(_ p: UnsafePointer<CChar>) -> String {
        let n = strnlen(p, 4 * maxCueCharacters)
        return p.withMemoryRebound(to: UInt8.self, capacity: n) {
            let bytes = UnsafeBufferPointer(start: $0, count: n)
            return String(validating: bytes, as: UTF8.self) ?? windows1252(bytes)
        }
    }

    /// A copy of a text subtitle packet whose bytes are not UTF-8, converted from Windows-1252;
    /// nil for bitmap codecs and for packets that are UTF-8 already.
    static func windows1252Packet(_ packet: Packet, decoder: CodecContext) -> Packet? {
        let props = avcodec_descriptor_get(decoder.pointer.pointee.codec_id)?.pointee.props ?? 0
        guard props & AV_CODEC_PROP_TEXT_SUB != 0, let data = packet.pointer.pointee.data, packet.size > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: packet.size)
        guard String(validating: bytes, as: UTF8.self) == nil,
              let copy = try? Packet(bytes: Array(windows1252(bytes).utf8)) else { return nil }
        copy.pointer.pointee.pts = packet.pointer.pointee.pts
        copy.pointer.pointee.dts = packet.pointer.pointee.dts
        copy.pointer.pointee.duration = packet.pointer.pointee.duration
        return copy
    }

    /// Windows-1252 → Unicode: Latin-1, with 0x80–0x9F mapped to the punctuation Windows puts
    /// there (undefined ones become U+FFFD).
    static func windows1252(_ bytes: some Sequence<UInt8>) -> String {
        let high: [UInt32] = [0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
                              0x0152, 0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                              0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178]
        var out = String.UnicodeScalarView()
        for b in bytes {
            let v = (0x80...0x9F).contains(b) ? high[Int(b) - 0x80] : UInt32(b)
            out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
        }
        return String(out)
    }

    /// The palette walk: indices in `data[0]`, a `[B,G,R,A]` palette in `data[1]`; cropped to the
    /// pixels with alpha ≥ 8 and written as premultiplied RGBA.
    static func bitmap(_ rect: AVSubtitleRect, frameWidth: Int, frameHeight: Int) -> SubtitleBitmap? {
        let w = Int(rect.w), h = Int(rect.h), stride = Int(rect.linesize.0)
        guard w > 0, h > 0, w <= maxBitmapSide, h <= maxBitmapSide, stride >= w,
              let indices = rect.data.0, let palette = rect.data.1 else { return nil }
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

/// The sizes PGS object definitions claim, read before libavcodec decodes them: its decoder
/// allocates an object's whole canvas (and copies it), so a 12,800-pixel square costs hundreds
/// of megabytes before the bitmap could be refused.
enum PGSObjects {
    /// The largest width or height any object definition segment (type 0x15, first fragment) in
    /// `packet` claims; 0 when there is none. Segments: type (1 byte), length (2), payload; an
    /// object definition's payload: id (2), version (1), sequence flags (1, 0x80 first
    /// fragment), data length (3), width (2), height (2). A truncated segment ends the walk.
    static func largestSide(_ packet: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0, largest = 0
        while offset + 3 <= packet.count {
            let type = packet[offset], length = Int(packet[offset + 1]) << 8 | Int(packet[offset + 2])
            let payload = offset + 3
            if type == 0x15, length >= 11, payload + 11 <= packet.count, packet[payload + 3] & 0x80 != 0 {
                let width = Int(packet[payload + 7]) << 8 | Int(packet[payload + 8])
                let height = Int(packet[payload + 9]) << 8 | Int(packet[payload + 10])
                largest = max(largest, width, height)
            }
            offset = payload + length
        }
        return largest
    }
}
