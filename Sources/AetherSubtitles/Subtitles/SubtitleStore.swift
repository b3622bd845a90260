import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials

/// Decodes the selected subtitle track's packets as the demuxer reads them, loads sidecar files
/// whole, and answers "what is on screen at t".
///
/// Its parts, each with its own state: ``SubtitleTracks`` holds the cues and answers the lookups
/// (bounded: the selected track's embedded cues only, pruned behind the demuxer, capped in count
/// and bitmap bytes); ``SubtitleDecoder`` turns the demuxer's packets into cues (text cut at a
/// length, bitmaps cropped and refused past a side); ``LookBehindReader`` refetches the cues that
/// began before a seek or a track switch, off the playback threads; ``SidecarReader`` reads
/// sidecar files and documents.
/// Thread-safe: the demux thread adds, the UI thread reads; the tracks and the lyrics are only
/// touched with `state`'s lock held.
public final class SubtitleStore: Sendable {
    struct State {
        var tracks = SubtitleTracks()
        /// The first LRC sidecar's lines (its track is also a subtitle track), else the file's
        /// own (``SubtitleStore/addEmbeddedLyrics(metadata:path:duration:)``).
        var lyrics: Lyrics?
        var lyricsFromSidecar = false
        /// The subtitle track made from ``lyrics`` (nil: none, or they have no times).
        var lyricsTrack: Int?
    }

    /// Sidecar files larger than this are refused (a film's SRT is well under 1 MiB).
    public static let maxSidecarBytes = 64 << 20

    let state = Guarded(State())
    /// The demuxer's packets' decoder, used on the demux thread only (the lock is never contended).
    private let decoder: Guarded<SubtitleDecoder>
    private let lookBehind: LookBehindReader
    let sidecars: SidecarReader
    /// The file's attached fonts, handed to libass with every text cue.
    public let fonts: ASSFontSet?

    /// - Parameters:
    ///   - url: the source exactly as opened (not the sanitised name), for the look-behind reader.
    ///   - openOptions: what the source was opened with (HTTP headers, protocol whitelist).
    ///   - network: how the source and a sidecar URL are fetched again (through the transport).
    ///   - codepage: sidecar text that is not UTF-8 is read in this code page (`--sub-codepage`).
    ///   - clock: the reads' deadlines (the session's).
    package init(info: MediaInfo, url: String, openOptions: [String: String] = [:], network: NetworkSettings, timeline: Timeline,
         codepage: String = "CP1252", fonts: ASSFontSet? = nil, clock: TimeSource) {
        self.fonts = fonts
        let width = info.primaryVideo?.width ?? 0, height = info.primaryVideo?.height ?? 0
        decoder = Guarded(SubtitleDecoder(timeline: timeline, videoWidth: width, videoHeight: height))
        lookBehind = LookBehindReader(url: url, openOptions: openOptions, network: network, clock: clock,
                                      decoder: SubtitleDecoder(timeline: timeline, videoWidth: width, videoHeight: height))
        sidecars = SidecarReader(openOptions: openOptions, network: network, fallbackCodepage: codepage, videoWidth: width,
                                 videoHeight: height, clock: clock)
        let tracks = info.subtitles.enumerated().map { n, s in
            SubtitleTracks.Track(info: SubtitleTrackInfo(id: n, source: .embedded(streamIndex: s.index), codec: s.codec,
                                                         kind: s.kind, language: s.tags.language, title: s.tags.title,
                                                         isDefault: s.tags.isDefault, isForced: s.tags.isForced))
        }
        state.withLock { $0.tracks.tracks = tracks }
    }

    /// A store for tests: the tracks of `info`, no source to read (so a clock that stands still:
    /// no deadline is ever asked of it).
    convenience init(info: MediaInfo) {
        self.init(info: info, url: "", network: NetworkSettings(), timeline: Timeline(origin: 0), clock: ManualTimeSource().source)
    }

    public var tracks: [SubtitleTrackInfo] { state.withLock { $0.tracks.tracks.map(\.info) } }
    /// Synced lyrics from the first LRC file loaded (``Lyrics``), for the music view.
    public var lyrics: Lyrics? { state.withLock { $0.lyrics } }
    /// The subtitle track the lyrics are also (their lines as cues); nil when none is.
    public var lyricsTrack: Int? { state.withLock { $0.lyricsTrack } }
    public var selectedTrack: Int? { state.withLock { $0.tracks.selected } }

    /// Selects track `id` (nil = off). Embedded cues of other tracks are dropped; the new track's
    /// cues from `lookBehind` seconds before `position` up to `readAhead` are fetched
    /// off the playback threads (the demuxer only decodes the selected track from here on).
    public func select(_ id: Int?, position: Double? = nil, readAhead: Double? = nil) {
        let fetch = state.withLock { $0.tracks.select(id) }
        if fetch, let position { seeked(to: position, readAhead: readAhead ?? position) }
    }

    /// The track to start with: the requested one, else the first in a preferred language
    /// (`languages`, most wanted first), else a forced or default one.
    package func initialTrack(requested: Int?, enabled: Bool, languages: [String] = []) -> Int? {
        guard enabled else { return nil }
        let choice = state.withLock { $0.tracks.initial(requested: requested, languages: languages) }
        select(choice)
        return choice
    }

    /// At most this many cues are returned by `active(at:)` (the latest-starting ones).
    public static let maxActive = 8

    /// Cues of the selected track on screen at `time`, in start order.
    /// `limit` (default ``maxActive``) caps how many: libass asks for more (typesetting puts
    /// hundreds of signs on screen at once).
    public func active(at time: Double, limit: Int = SubtitleStore.maxActive) -> [SubtitleCue] {
        state.withLock { $0.tracks.active(at: time, limit: limit) }
    }

    /// The next time after `time` at which the selected track's active cues change (a cue
    /// starts or one showing ends), or nil when none will: a host sleeps until then.
    public func nextChange(after time: Double) -> Double? {
        state.withLock { $0.tracks.nextChange(after: time) }
    }

    /// All cues held for track `id` (tests, menus).
    public func cues(track id: Int) -> [SubtitleCue] {
        state.withLock { s in s.tracks.tracks.indices.contains(id) ? s.tracks.tracks[id].cues : [] }
    }

    /// How many passes pruning made over track `id` (the cost of reading its cues).
    func prunes(track id: Int) -> Int {
        state.withLock { s in s.tracks.tracks.indices.contains(id) ? s.tracks.tracks[id].prunes : 0 }
    }

    /// True when the demuxer should decode this stream's packets: it is the selected track.
    package func handles(streamIndex: Int) -> Bool {
        state.withLock { $0.tracks.selectedStream == streamIndex }
    }

    /// The demuxer moved to `time`: fetch the cues that started shortly before it (up to
    /// `readAhead`, where the demuxer will take over).
    package func seeked(to time: Double, readAhead: Double? = nil) {
        guard let stream = state.withLock({ $0.tracks.selectedStream }) else { return }
        lookBehind.fetch(stream: stream, before: time, until: max(time, readAhead ?? time) + 1) { [self] cues in
            insert(cues, streamIndex: stream, position: nil)
        }
    }

    /// Stops a look-behind read in flight and closes its demuxer (the session is ending).
    package func close() {
        lookBehind.close()
    }

    /// Why a sidecar could not be loaded.
    public struct SidecarError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Called on the demux thread with each packet of the selected track; `position` is the
    /// demuxer's media time (older cues are pruned against it).
    package func add(packet: Packet, stream: UnsafeMutablePointer<AVStream>?, position: Double?) {
        guard let stream else { return }
        let cues = decoder.withLock { $0.cues(of: packet, stream: stream) }
        insert(cues, streamIndex: packet.streamIndex, position: position)
    }

    /// Adds decoded cues to the track of `streamIndex` (``SubtitleTracks/insert(_:streamIndex:position:)``).
    func insert(_ cues: [SubtitleCue], streamIndex index: Int, position: Double?) {
        guard !cues.isEmpty else { return }
        let cues = stampFonts(cues)
        state.withLock { $0.tracks.insert(cues, streamIndex: index, position: position) }
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

    // MARK: sidecars

    /// Loads a sidecar (SRT, ASS, VTT, LRC …) as a new track and returns its id (``SidecarReader``).
    /// The first LRC file's lyrics are also the music view's.
    @discardableResult
    public func addSidecar(path: String) throws(SidecarError) -> Int {
        add(try sidecars.read(path: path))
    }

    /// A subtitle document already in memory (a DASH text set's WebVTT files joined), as a
    /// sidecar track tagged with `language`.
    package func addDocument(_ bytes: [UInt8], name: String, path: String, language: String?) throws(SidecarError) -> Int {
        add(try sidecars.read(document: bytes, name: name, path: path, language: language))
    }

    /// The file's own lyrics (``SidecarReader/embeddedLyrics(metadata:path:duration:)``), unless
    /// lyrics were loaded already; synced ones are also a subtitle track. A sidecar's lyrics,
    /// loaded later, take their place.
    public func addEmbeddedLyrics(metadata: [OpaquePointer?], path: String?, duration: Double?) {
        guard let lyrics = SidecarReader.embeddedLyrics(metadata: metadata, path: path, duration: duration) else { return }
        var track: Int?
        if lyrics.isSynced {
            track = try? addDocument(Array(lyrics.webVTT.utf8), name: "lyrics", path: path ?? "lyrics", language: nil)
        }
        state.withLock { if $0.lyrics == nil { $0.lyrics = lyrics; $0.lyricsTrack = track } }
    }

    private func add(_ sidecar: SidecarTrack) -> Int {
        let cues = stampFonts(sidecar.cues)
        return state.withLock { s in
            let id = s.tracks.append(sidecar, cues: cues)
            if let lyrics = sidecar.lyrics {
                if s.lyrics == nil || !s.lyricsFromSidecar { s.lyrics = lyrics; s.lyricsTrack = id }
                s.lyricsFromSidecar = true
            }
            return id
        }
    }

    /// Finds sidecar files next to `path` sharing its base name (`movie.srt`, `movie.en.ass`).
    public static func sidecarCandidates(for path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let base = url.deletingPathExtension().lastPathComponent
        let dir = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [] }
        let exts: Set<String> = ["srt", "ass", "ssa", "vtt", "sub", "lrc"]
        return names.filter { name in
            let u = URL(fileURLWithPath: name)
            return exts.contains(u.pathExtension.lowercased()) && (name.hasPrefix(base + ".") )
        }.sorted().map { dir.appendingPathComponent($0).path }
    }
}
