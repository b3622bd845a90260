import AetherMedia
import AetherStreaming
import AetherSubtitles
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

extension SourceOpener {
    /// WebVTT files (or WebVTT text segments) fetched for one DASH text set at most, and their
    /// bytes in all (``SubtitleStore/maxSidecarBytes``).
    static let maxTextSegments = 64

    /// The text adaptation sets of a DASH manifest played through our reader, as subtitle
    /// tracks (libavformat's HLS demuxer, which plays the translation, reads no subtitle
    /// renditions in 5.1): a WebVTT set's representation (`text/vtt`, or `.vtt` files without a
    /// MIME type; the one a download takes) has its files fetched with the source's headers and
    /// joined, each period's cues moved by the period's start (``WebVTTJoin``), within
    /// ``maxTextSegments`` files and ``SubtitleStore/maxSidecarBytes``; tagged with the set's
    /// `lang`. A set of WebVTT in MP4 (`wvtt`: `application/mp4`, codecs `wvtt`) has its init
    /// section and segments fetched the same way (within the same budgets) and its samples read
    /// into cues (``WVTTReader``). TTML and stpp sets are left out with one log line each
    /// (libavformat 5.1 reads no TTML), as downloads do.
    static func addText(of manifest: DASHManifest, to subtitles: SubtitleStore, openOptions: [String: String],
                        options: PlayerOptions) {
        let timeout = min(options.openTimeout, max(1, options.network.readTimeout))
        for (k, track) in manifest.tracks.enumerated() where track.contentType == .text {
            let language = track.language.map { TextSanitizer.clean(String($0.prefix(32))) } ?? "none"
            if let rep = track.representations.last(where: { !$0.segments.isEmpty && isWVTT($0) }),
               !track.representations.contains(where: { !$0.segments.isEmpty && $0.isWebVTT }) {
                addWVTT(rep, set: k, track: track, language: language, to: subtitles, openOptions: openOptions, options: options, timeout: timeout)
                continue
            }
            guard let rep = track.representations.last(where: { !$0.segments.isEmpty && $0.isWebVTT }) else {
                AppLog.write("dash", "text adaptation set \(k + 1) (language \(language)) left out: only WebVTT can be read (not TTML or stpp)")
                continue
            }
            guard rep.segments.count <= maxTextSegments else {
                AppLog.write("dash", "text adaptation set \(k + 1) (language \(language)) left out: \(rep.segments.count) files (more than \(maxTextSegments))")
                continue
            }
            var files: [[UInt8]] = []
            var total = 0
            for segment in rep.segments {
                guard let bytes = try? SmallFetch.bytes(segment.resource.url, options: openOptions, settings: options.network,
                                                        interrupt: InterruptToken(), timeout: timeout,
                                                        limit: SubtitleStore.maxSidecarBytes - total, range: segment.resource.range) else {
                    files = []
                    break
                }
                total += bytes.count
                files.append(bytes)
            }
            guard !files.isEmpty else {
                AppLog.write("dash", "text adaptation set \(k + 1) (language \(language)) left out: its files cannot be read")
                continue
            }
            let cues: [WebVTTJoin.Cue]
            do { cues = try WebVTTJoin.cues(files, offsets: rep.segments.map(\.periodStart)) } catch {
                AppLog.write("dash", "text adaptation set \(k + 1) (language \(language)) left out: \(error.message)")
                continue
            }
            let first = rep.segments[0].resource.url
            do {
                let id = try subtitles.addDocument(Array(WebVTTJoin.document(cues, shift: 0).utf8), name: first, path: first,
                                                   language: track.language)
                AppLog.write("dash", "text adaptation set \(k + 1) (language \(language)): \(cues.count) cues from \(files.count) WebVTT file(s), subtitle track \(id + 1)")
            } catch {
                AppLog.write("dash", "text adaptation set \(k + 1) (language \(language)) left out: \(error.description)")
            }
        }
    }

    /// Whether a text representation is WebVTT in MP4 (`wvtt`).
    static func isWVTT(_ rep: DASHManifest.Representation) -> Bool {
        (rep.mimeType?.lowercased().hasPrefix("application/mp4") ?? true) && (rep.codecs?.lowercased().hasPrefix("wvtt") ?? false)
    }

    /// A `wvtt` set as a subtitle track: its init section and at most ``maxTextSegments``
    /// segments (within ``SubtitleStore/maxSidecarBytes`` in all) fetched, their samples read
    /// (``WVTTReader``), each segment's cues placed at its start on the presentation timeline.
    private static func addWVTT(_ rep: DASHManifest.Representation, set k: Int, track: DASHManifest.Track, language: String,
                                to subtitles: SubtitleStore, openOptions: [String: String], options: PlayerOptions, timeout: Double) {
        let name = "text adaptation set \(k + 1) (language \(language))"
        guard let initialization = rep.initialization else {
            AppLog.write("dash", "\(name) left out: its WebVTT in MP4 has no init section")
            return
        }
        guard rep.segments.count <= maxTextSegments else {
            AppLog.write("dash", "\(name) left out: \(rep.segments.count) segments (more than \(maxTextSegments))")
            return
        }
        var total = 0
        func fetch(_ resource: DASHManifest.Resource) -> [UInt8]? {
            guard let bytes = try? SmallFetch.bytes(resource.url, options: openOptions, settings: options.network, interrupt: InterruptToken(),
                                                    timeout: timeout, limit: SubtitleStore.maxSidecarBytes - total, range: resource.range) else { return nil }
            total += bytes.count
            return bytes
        }
        guard let head = fetch(initialization) else {
            AppLog.write("dash", "\(name) left out: its init section cannot be read")
            return
        }
        var segments: [(bytes: [UInt8], start: Double)] = []
        for segment in rep.segments {
            guard let bytes = fetch(segment.resource) else {
                AppLog.write("dash", "\(name) left out: its segments cannot be read")
                return
            }
            segments.append((bytes, segment.start))
        }
        let cues: [WebVTTJoin.Cue]
        do { cues = try WVTTReader.cues(initialization: head, segments: segments) } catch {
            AppLog.write("dash", "\(name) left out: \(error.message)")
            return
        }
        let first = rep.segments[0].resource.url
        do {
            let id = try subtitles.addDocument(Array(WebVTTJoin.document(cues, shift: 0).utf8), name: first, path: first, language: track.language)
            AppLog.write("dash", "\(name): \(cues.count) cues from \(segments.count) WebVTT in MP4 segment(s), subtitle track \(id + 1)")
        } catch {
            AppLog.write("dash", "\(name) left out: \(error.description)")
        }
    }

    /// The fonts attached to the file (Matroska attachments: FFmpeg keeps their bytes as the
    /// stream's extradata), for libass; nil when there are none.
    static func attachedFonts(_ format: FormatContext) -> ASSFontSet? {
        var fonts: [ASSFontSet.Font] = []
        var total = 0
        for index in 0..<format.streamCount where fonts.count < ASSFontSet.maxFonts {
            guard let stream = format.stream(index), let par = stream.pointee.codecpar,
                  par.pointee.codec_type == AVMEDIA_TYPE_ATTACHMENT else { continue }
            let mime = metadataValue(stream.pointee.metadata, "mimetype")
            let name = metadataValue(stream.pointee.metadata, "filename") ?? "attachment \(index)"
            guard ASSFontSet.isFont(mimeType: mime, filename: name)
                    || [AV_CODEC_ID_TTF, AV_CODEC_ID_OTF].contains(par.pointee.codec_id) else { continue }
            guard let data = par.pointee.extradata, par.pointee.extradata_size > 0 else { continue }
            let size = Int(par.pointee.extradata_size)
            // Checked before copying: a file of many large attachments costs no memory.
            guard size <= ASSFontSet.maxFontBytes, total + size <= ASSFontSet.maxTotalBytes else {
                ASSLog.receive(level: 1, line: "font attachment '\(TextSanitizer.clean(name))' (\(size) bytes) skipped: \(ASSFontSet.limitText)")
                continue
            }
            total += size
            fonts.append(ASSFontSet.Font(name: TextSanitizer.clean(name), data: Array(UnsafeBufferPointer(start: data, count: size))))
        }
        return fonts.isEmpty ? nil : ASSFontSet(fonts: fonts)
    }

    private static func metadataValue(_ dict: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dict, key, nil, 0), let value = entry.pointee.value else { return nil }
        return String(cString: value)
    }
}
