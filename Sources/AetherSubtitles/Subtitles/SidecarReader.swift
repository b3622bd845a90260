import AetherBase
import AetherMedia
import AetherStreaming
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A sidecar read whole: its cues, not yet a track of the store.
struct SidecarTrack {
    var path: String
    var codec: String
    var kind: SubtitleKind
    var language: String?
    var cues: [SubtitleCue]
    /// An LRC file's lines (its cues are these lines as WebVTT).
    var lyrics: Lyrics?
}

/// Reads sidecar subtitle files and documents (SRT, ASS, VTT, LRC …): local paths, network URLs
/// and bytes in memory, in the code page they need, into cues placed on the film's picture.
///
/// Only regular files up to ``SubtitleStore/maxSidecarBytes`` are read (a FIFO named
/// `movie.srt` would block forever), with a deadline; a network sidecar is fetched whole with the
/// source's headers. It keeps what the session gave the store for this: the source's open
/// options, the code page for text that is not UTF-8 (`--sub-codepage`) and the video's size.
struct SidecarReader: Sendable {
    typealias SidecarError = SubtitleStore.SidecarError

    /// What the source was opened with (HTTP headers, protocol whitelist).
    let openOptions: [String: String]
    /// How a sidecar URL is fetched (the source's settings: its TLS policy, its deadline).
    let network: NetworkSettings
    /// Sidecar text that is not UTF-8 is read in this code page.
    let fallbackCodepage: String
    /// The picture bitmap cues are placed on (0 × 0: none, their own canvas).
    let videoWidth: Int
    let videoHeight: Int
    /// The reads' deadlines.
    let clock: TimeSource

    /// The sidecar at `path` (a local file or a network URL).
    func read(path: String) throws(SidecarError) -> SidecarTrack {
        let name = TextSanitizer.clean(path)
        if NetworkSettings.isNetwork(path) { return try readNetwork(url: path) }
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
            return try readLyrics(bytes, name: name, path: path)
        }
        let codepage = Self.isUTF8(path: path) ? nil : fallbackCodepage
        let format: FormatContext
        do {
            format = try FormatContext(url: "file:" + path, options: ["protocol_whitelist": "file"], timeout: 5,
                                       interrupt: InterruptToken(clock: clock))
        } catch {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(error.message)")
        }
        return try read(format: format, name: name, path: path, codepage: codepage)
    }

    /// A sidecar over the network: fetched whole (with the source's headers, at most
    /// `maxSidecarBytes`), then demuxed from memory.
    private func readNetwork(url: String) throws(SidecarError) -> SidecarTrack {
        let name = TextSanitizer.clean(url)
        let bytes: [UInt8]
        do {
            bytes = try SmallFetch.bytes(url, options: openOptions, settings: network, interrupt: InterruptToken(clock: clock),
                                         timeout: 10, limit: SubtitleStore.maxSidecarBytes)
        } catch {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(error.message)")
        }
        if Self.isLyrics(url) { return try readLyrics(bytes, name: name, path: url) }
        let codepage = String(validating: bytes, as: UTF8.self) != nil ? nil : fallbackCodepage
        let format: FormatContext
        do { format = try FormatContext(bytes: bytes, clock: clock) } catch {
            throw SidecarError(description: "cannot read subtitle file '\(name)': \(error.message)")
        }
        return try read(format: format, name: name, path: url, codepage: codepage)
    }

    /// An LRC file (by its name: `.lrc`), read by ``Lyrics`` rather than libavformat.
    static func isLyrics(_ path: String) -> Bool {
        Paths.pathExtension(URLComponents(string: path)?.path ?? path).lowercased() == "lrc"
    }

    /// Synced lyrics, with their lines as WebVTT cues.
    private func readLyrics(_ bytes: [UInt8], name: String, path: String) throws(SidecarError) -> SidecarTrack {
        guard let lyrics = Lyrics.parse(bytes) else {
            throw SidecarError(description: "'\(name)' holds no synced lyrics (no [mm:ss.xx] stamps)")
        }
        var track = try read(document: Array(lyrics.webVTT.utf8), name: name, path: path, language: nil)
        track.lyrics = lyrics
        return track
    }

    /// The file's own lyrics: ID3 `SYLT` (read from the head of a local file: libavformat keeps
    /// no `SYLT`), else a `LYRICS`, `lyrics-<lang>` (ID3 `USLT`) or `UNSYNCEDLYRICS` tag: LRC
    /// text is synced lyrics, other text lyrics without times. `metadata`: the container's,
    /// then the audio stream's (Ogg keeps its comments there).
    static func embeddedLyrics(metadata: [OpaquePointer?], path: String?, duration: Double?) -> Lyrics? {
        if let path, !NetworkSettings.isNetwork(path), let head = ID3SyncedLyrics.head(of: path) {
            let entries = ID3SyncedLyrics.entries(head)
            if !entries.isEmpty { return Lyrics.synced(entries, duration: duration) }
        }
        // The container's tags first, then the stream's.
        let text = metadata.lazy.compactMap { dict in
            MediaProbe.rawTag([dict], "lyrics", prefix: true) ?? MediaProbe.rawTag([dict], "unsyncedlyrics", prefix: true)
        }.first
        guard let text else { return nil }
        return Lyrics.parse(Array(text.utf8.prefix(Lyrics.maxBytes)), duration: duration) ?? Lyrics.unsynced(text)
    }

    /// A subtitle document already in memory (a DASH text set's WebVTT files joined), tagged
    /// with `language`.
    func read(document bytes: [UInt8], name: String, path: String, language: String?) throws(SidecarError) -> SidecarTrack {
        guard bytes.count <= SubtitleStore.maxSidecarBytes else {
            throw SidecarError(description: "subtitle file '\(TextSanitizer.clean(name))' is too large (\(bytes.count) bytes)")
        }
        let format: FormatContext
        do { format = try FormatContext(bytes: bytes, clock: clock) } catch {
            throw SidecarError(description: "cannot read subtitle file '\(TextSanitizer.clean(name))': \(error.message)")
        }
        return try read(format: format, name: TextSanitizer.clean(name), path: path, codepage: nil,
                        language: language.map { TextSanitizer.clean(String($0.prefix(32))) })
    }

    /// The first subtitle stream of `format`, decoded whole (at most ``SubtitleTracks/maxCues``
    /// cues), its text read in `codepage` when given.
    private func read(format: FormatContext, name: String, path: String, codepage: String?,
                      language: String? = nil) throws(SidecarError) -> SidecarTrack {
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
        while cues.count < SubtitleTracks.maxCues, (try? format.read(into: packet)) == true {
            if packet.streamIndex == Int(stream.pointee.index) {
                // A sidecar's times are on the film's timeline as they stand.
                cues += SubtitleDecoder.decode(packet, decoder: decoder, stream: stream, timeline: format.timeline,
                                               width: videoWidth, height: videoHeight, origin: 0)
            }
            packet.unref()
        }
        format.interrupt.arm(seconds: nil)
        let props = avcodec_descriptor_get(par.pointee.codec_id)?.pointee.props ?? 0
        return SidecarTrack(path: path, codec: String(cString: avcodec_get_name(par.pointee.codec_id)),
                            kind: props & AV_CODEC_PROP_BITMAP_SUB != 0 ? .bitmap : .text, language: language, cues: cues)
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
}
