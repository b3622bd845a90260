import AetherBase
import AetherMedia
import AetherStreaming
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// Sidecar subtitle files and documents: local paths, network URLs, codepages, candidates beside a file.
extension SubtitleStore {
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
        if Self.isLyrics(path) {
            guard let bytes = try? FileBytes.read(path: path, limit: SubtitleStore.maxSidecarBytes, regularOnly: true).get() else {
                throw SidecarError(description: "cannot read subtitle file '\(name)'")
            }
            return try addLyrics(bytes, name: name, path: path)
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
        if Self.isLyrics(url) { return try addLyrics(bytes, name: name, path: url) }
        let codepage = String(validating: bytes, as: UTF8.self) != nil ? nil : fallbackCodepage
        let format: FormatContext
        do { format = try FormatContext(bytes: bytes) } catch {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(error.message)")
        }
        return try addSidecar(format: format, name: name, path: url, codepage: codepage)
    }

    /// An LRC file (by its name: `.lrc`), read by ``Lyrics`` rather than libavformat.
    static func isLyrics(_ path: String) -> Bool {
        Paths.pathExtension(URLComponents(string: path)?.path ?? path).lowercased() == "lrc"
    }

    /// Synced lyrics as a subtitle track (their lines as WebVTT cues) and, the first time, as
    /// the music view's lyrics.
    private func addLyrics(_ bytes: [UInt8], name: String, path: String) throws(SidecarError) -> Int {
        guard let lyrics = Lyrics.parse(bytes) else {
            throw SidecarError(description: "'\(name)' holds no synced lyrics (no [mm:ss.xx] stamps)")
        }
        let id = try addDocument(Array(lyrics.webVTT.utf8), name: name, path: path, language: nil)
        state.withLock {
            if $0.lyrics == nil || !$0.lyricsFromSidecar { $0.lyrics = lyrics; $0.lyricsTrack = id }
            $0.lyricsFromSidecar = true
        }
        return id
    }

    /// The file's own lyrics: ID3 `SYLT` (read from the head of a local file: libavformat keeps
    /// no `SYLT`), else a `LYRICS`, `lyrics-<lang>` (ID3 `USLT`) or `UNSYNCEDLYRICS` tag: LRC
    /// text is synced lyrics, other text lyrics without times (shown, never highlighted).
    /// Synced ones are also a subtitle track. A sidecar's lyrics, loaded later, take their place.
    /// `metadata`: the container's, then the audio stream's (Ogg keeps its comments there).
    public func addEmbeddedLyrics(metadata: [OpaquePointer?], path: String?, duration: Double?) {
        var lyrics: Lyrics?
        if let path, !NetworkSettings.isNetwork(path), let head = ID3SyncedLyrics.head(of: path) {
            let entries = ID3SyncedLyrics.entries(head)
            if !entries.isEmpty { lyrics = Lyrics.synced(entries, duration: duration) }
        }
        if lyrics == nil {
            // The container's tags first, then the stream's.
            let text = metadata.lazy.compactMap { dict in
                MediaProbe.rawTag([dict], "lyrics", prefix: true) ?? MediaProbe.rawTag([dict], "unsyncedlyrics", prefix: true)
            }.first
            if let text { lyrics = Lyrics.parse(Array(text.utf8.prefix(Lyrics.maxBytes)), duration: duration) ?? Lyrics.unsynced(text) }
        }
        guard let lyrics else { return }
        var track: Int?
        if lyrics.isSynced {
            track = try? addDocument(Array(lyrics.webVTT.utf8), name: "lyrics", path: path ?? "lyrics", language: nil)
        }
        state.withLock { if $0.lyrics == nil { $0.lyrics = lyrics; $0.lyricsTrack = track } }
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
        guard var bytes = FileBytes.prefix(path: path, limit: 1 << 20) else { return true }
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
        let exts: Set<String> = ["srt", "ass", "ssa", "vtt", "sub", "lrc"]
        return names.filter { name in
            let u = URL(fileURLWithPath: name)
            return exts.contains(u.pathExtension.lowercased()) && (name.hasPrefix(base + ".") )
        }.sorted().map { dir.appendingPathComponent($0).path }
    }

    /// Called on the demux thread with each packet of the selected track; `position` is the
}
