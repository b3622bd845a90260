import AetherBase
import AetherMedia
import AetherStreaming
import CFFmpeg
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
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
public final class SubtitleStore: Sendable {
    struct Track {
        var info: SubtitleTrackInfo
        var cues: [SubtitleCue] = []
        var bitmapBytes = 0
        /// Longest cue so far: how far back from `t` a cue showing at `t` can start.
        var longest = 0.0
        /// Passes made over the cues to prune them (each costs the track's length).
        var prunes = 0
    }

    struct State {
        var tracks: [Track] = []
        var selected: Int?
        var insertsSincePrune = 0
        /// The first LRC sidecar's lines (its track is also a subtitle track), else the file's
        /// own (``SubtitleStore/addEmbeddedLyrics(metadata:path:duration:)``).
        var lyrics: Lyrics?
        var lyricsFromSidecar = false
        /// The subtitle track made from ``lyrics`` (nil: none, or they have no times).
        var lyricsTrack: Int?
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

    let state = Guarded(State())
    /// Per-stream decoders, used on the demux thread only (the lock is never contended).
    private let decoders = Guarded<[Int: CodecContext]>([:])
    let videoWidth: Int
    let videoHeight: Int
    /// The file's attached fonts, handed to libass with every text cue.
    public let fonts: ASSFontSet?
    /// Cues that began before a seek target are still on screen after it, but the demuxer starts
    /// reading at the target: a second demuxer reads the subtitle packets of the preceding
    /// `lookBehind` seconds, off the playback threads.
    static let lookBehind = 10.0
    private let url: String
    let openOptions: [String: String]
    private let timeline: Timeline
    /// Sidecar text that is not UTF-8 is read in this code page (`--sub-codepage`).
    let fallbackCodepage: String
    private let prefetchQueue = DispatchQueue(label: "aether.subtitles.prefetch")
    /// The look-behind reader's demuxer and decoders, used on `prefetchQueue` only (the lock
    /// is never contended).
    private let prefetchReader = Guarded<(format: FormatContext?, decoders: [Int: CodecContext])>((nil, [:]))
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
    /// Synced lyrics from the first LRC file loaded (``Lyrics``), for the music view.
    public var lyrics: Lyrics? { state.withLock { $0.lyrics } }
    /// The subtitle track the lyrics are also (their lines as cues); nil when none is.
    public var lyricsTrack: Int? { state.withLock { $0.lyricsTrack } }
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

    /// How many passes pruning made over track `id` (the cost of reading its cues).
    func prunes(track id: Int) -> Int {
        state.withLock { s in s.tracks.indices.contains(id) ? s.tracks[id].prunes : 0 }
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
        prefetchQueue.sync { prefetchReader.withLock { $0 = (nil, [:]) } }
    }

    /// Runs on `prefetchQueue` only.
    private func prefetch(stream wanted: Int, from start: Double, until: Double, generation: Int) {
        if prefetchReader.withLock({ $0.format }) == nil {
            guard SourceOptions.isReopenable(url) else { return }  // a second reader would take the pipe's bytes
            let opened = try? FormatContext(url: url, options: openOptions, timeout: 5, interrupt: prefetchInterrupt)
            prefetchReader.withLock { $0.format = opened }
            guard let format = opened else { return }
            for i in 0..<format.streamCount {
                guard let stream = format.stream(i) else { continue }
                let isSubtitle = stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE
                stream.pointee.discard = isSubtitle ? AVDISCARD_DEFAULT : AVDISCARD_ALL
            }
        }
        guard let format = prefetchReader.withLock({ $0.format }), let packet = try? Packet() else { return }
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
            let decoder = prefetchReader.withLock { r in
                if r.decoders[index] == nil {
                    r.decoders[index] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
                }
                return r.decoders[index]
            }
            guard let decoder else { continue }
            insert(SubtitleStore.decode(packet, decoder: decoder, stream: stream, timeline: timeline,
                                        width: videoWidth, height: videoHeight),
                   streamIndex: index, position: nil)
        }
    }

    /// Why a sidecar could not be loaded.
    public struct SidecarError: Error, CustomStringConvertible {
        public let description: String
    }

    /// demuxer's media time (older cues are pruned against it).
    package func add(packet: Packet, stream: UnsafeMutablePointer<AVStream>?, position: Double?) {
        guard let stream, let par = stream.pointee.codecpar else { return }
        let index = packet.streamIndex
        let decoder = decoders.withLock { d in
            if d[index] == nil {
                d[index] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
            }
            return d[index]
        }
        guard let decoder else { return }
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
    func stampFonts(_ cues: [SubtitleCue]) -> [SubtitleCue] {
        guard let fonts else { return cues }
        return cues.map { cue in
            var cue = cue
            cue.ass?.fonts = fonts
            return cue
        }
    }

    /// Drops cues that ended before `cutoff`, then the oldest ones past the count and byte caps:
    /// down to seven eighths of a cap once it is passed, so a stream of cues over it (a file of
    /// 200,000 cues) prunes once per eighth of the cap, not once per cue (each prune is a pass
    /// over the track: once per cue made reading quadratic).
    /// The pass touches only what it drops: the cues that start before the cutoff (start order:
    /// no later one can have ended before it) and the oldest past a cap; the byte count is kept
    /// by subtraction.
    private static func prune(_ track: inout Track, before cutoff: Double?) {
        var bytes = track.bitmapBytes
        if let cutoff {
            let head = upperBound(track.cues, cutoff)
            if head > 0, track.cues[..<head].contains(where: { $0.end < cutoff }) {
                var kept = Array(track.cues[..<head])
                bytes -= kept.reduce(0) { $1.end < cutoff ? $0 + $1.bitmapBytes : $0 }
                kept.removeAll { $0.end < cutoff }
                track.cues.replaceSubrange(0..<head, with: kept)
            }
        }
        let countCap = track.cues.count > maxCues ? maxCues - maxCues / 8 : maxCues
        var drop = max(0, track.cues.count - countCap)
        bytes -= track.cues[..<drop].reduce(0) { $0 + $1.bitmapBytes }
        let byteCap = bytes > maxBitmapBytes ? maxBitmapBytes - maxBitmapBytes / 8 : maxBitmapBytes
        while drop < track.cues.count, bytes > byteCap {
            bytes -= track.cues[drop].bitmapBytes
            drop += 1
        }
        if drop > 0 { track.cues.removeFirst(drop) }
        track.bitmapBytes = bytes
        track.prunes += 1
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
