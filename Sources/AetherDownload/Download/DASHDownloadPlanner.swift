import AetherMedia
import AetherStreaming
import Foundation

/// Turns a static DASH manifest into a ``DownloadPlan`` through ``DownloadPlanner``: every video
/// representation (periods joined, ``DASHManifest/tracks``) is a variant, each audio adaptation
/// set a rendition (its representation by `--hls-bitrate`: the lowest for `min`, else the
/// highest, as the player takes it), each WebVTT text set a subtitle rendition. A chosen
/// representation's track is its init section (`initialization`, a `SegmentBase`'s
/// `Initialization` range) and its segments (template, timeline, list, or the `sidx`
/// references of a `SegmentBase`, fetched by range here).
///
/// Refuses (one line): what ``DASHManifest/parse(_:base:now:limits:)`` refuses (a URL that is
/// not http(s), a timeline past its budgets, a number out of range), a dynamic (live) manifest,
/// a representation whose periods need different init sections (one output track cannot carry
/// two), no video or audio representation with segments. A manifest of sound only gives the
/// chosen audio sets (and text sets) without a video track. Text sets that are not WebVTT files (TTML,
/// `stpp` in MP4: libavformat 5.1 reads neither) are left out.
public enum DASHDownloadPlanner {
    /// Plans the manifest `text` read from `url`; `fetch` reads a `SegmentBase` index range.
    package static func plan(url: String, text: String, request: DownloadRequest,
                     fetch: (String, HLSMediaPlaylist.ByteRange?) throws(DownloadError) -> [UInt8]) throws(DownloadError) -> DownloadPlan {
        var manifest: DASHManifest
        do { manifest = try DASHManifest.parse(text, base: url) } catch { throw DownloadError(error.message) }
        guard !manifest.isDynamic else {
            throw DownloadError("a live (dynamic) DASH manifest cannot be downloaded")
        }
        if manifest.needsIndex {
            // An index that cannot be read fails the download (not a representation quietly dropped).
            var failure: DownloadError?
            func index(_ resource: DASHManifest.Resource) -> [UInt8]? {
                guard failure == nil else { return nil }
                guard let range = resource.range.flatMap(byteRange) else {
                    failure = DownloadError("an unusable SegmentBase@indexRange")
                    return nil
                }
                do throws(DownloadError) { return try fetch(resource.url, range) } catch {
                    failure = error
                    return nil
                }
            }
            do throws(OutsideValue.Refusal) { try manifest.resolveIndexes(fetch: index) } catch { throw DownloadError(error.message) }
            if let failure { throw failure }
        }

        // Every representation a variant or rendition may name, by a key of ours.
        var representations: [String: DASHManifest.Representation] = [:]
        let tracks = manifest.tracks
        let videoReps = tracks.filter { $0.contentType == .video }.flatMap(\.representations)
            .filter { !$0.segments.isEmpty }.sorted(by: DASHManifest.Representation.byRate)
        var variants: [StreamVariant] = []
        for (k, rep) in videoReps.enumerated() {
            let key = "dash:video:\(k)"
            representations[key] = rep
            var v = StreamVariant(uri: key, bandwidth: rep.bandwidth)
            v.width = rep.width
            v.height = rep.height
            v.codecs = rep.codecs
            v.frameRate = rep.frameRate
            v.audioGroup = "audio"
            v.subtitleGroup = "text"
            variants.append(v)
        }
        var renditions: [MediaRendition] = []
        var unsupported: [MediaRendition] = []
        for (k, track) in tracks.enumerated() where track.contentType == .audio || track.contentType == .text {
            let reps = track.representations.filter { !$0.segments.isEmpty && (track.contentType == .audio || isWebVTT($0)) }
            guard let rep = DASHManifest.Representation.pick(reps, lowest: request.preference == .min) else {
                if track.contentType == .text {
                    var r = MediaRendition(type: "SUBTITLES", groupID: "text")
                    r.language = track.language
                    unsupported.append(r)
                }
                continue
            }
            let audio = track.contentType == .audio
            let key = "dash:\(audio ? "audio" : "text"):\(k)"
            representations[key] = rep
            var r = MediaRendition(type: audio ? "AUDIO" : "SUBTITLES", groupID: audio ? "audio" : "text")
            r.language = track.language
            r.uri = key
            renditions.append(r)
        }
        var plan: DownloadPlan
        do throws(DownloadError) {
            plan = try DownloadPlanner.plan(source: url, variants: variants, renditions: renditions, request: request) {
                (kind: DownloadTrack.Kind, key: String, _: Int) throws(DownloadError) -> DownloadTrack in
                guard let rep = representations[key] else { throw DownloadError("no representation '\(TextSanitizer.clean(key))'") }
                return try Self.track(kind, rep, periods: manifest.periods.count)
            }
        } catch {
            // Nothing left to write: say what the reader left out and why.
            throw DownloadError(error.message + manifest.leftOutSummary)
        }
        // What the reader left out, one line each (the rest is written).
        plan.notes += manifest.leftOut
        // Text sets --slang asked for by language (or all) that are not WebVTT: said, not fetched.
        for r in DownloadPlanner.pick(unsupported, languages: request.subtitleLanguages, fallbackToFirst: false) {
            plan.notes.append("subtitles\(r.language.map { " in '\(TextSanitizer.clean($0))'" } ?? "") left out: only WebVTT text sets can be downloaded (not TTML or stpp)")
        }
        return plan
    }

    /// A text representation the download can join: a WebVTT file (`text/vtt`, or a `.vtt`
    /// URL with no MIME type), not TTML and not segments in MP4.
    package static func isWebVTT(_ rep: DASHManifest.Representation) -> Bool {
        if let mime = rep.mimeType?.lowercased() { return mime == "text/vtt" }
        let path = URLComponents(string: rep.segments.first?.resource.url ?? "")?.path.lowercased() ?? ""
        return path.hasSuffix(".vtt")
    }

    /// A representation's init section and segments as a track (every URL checked: http(s) with a host).
    /// `periods`: how many the manifest has (with more than one, each segment's media is moved
    /// onto the one timeline, as playback does).
    static func track(_ kind: DownloadTrack.Kind, _ rep: DASHManifest.Representation, periods: Int = 1) throws(DownloadError) -> DownloadTrack {
        let name = "representation '\(TextSanitizer.clean(String(rep.id.prefix(40))))'"
        var segments: [DownloadSegment] = []
        segments.reserveCapacity(rep.segments.count)
        for (k, s) in rep.segments.enumerated() {
            guard s.initialization == nil || s.initialization == rep.initialization else {
                throw DownloadError("\(name): its periods need different init sections (not supported for a download)")
            }
            try DownloadPlanner.allowed(s.resource.url)
            var range: HLSMediaPlaylist.ByteRange?
            if let r = s.resource.range {
                guard let converted = byteRange(r) else { throw DownloadError("\(name): an unusable byte range") }
                range = converted
            }
            var segment = DownloadSegment(uri: s.resource.url, duration: s.duration, sequence: k, byteRange: range)
            if kind == .subtitle { segment.cueOffset = s.periodStart }
            if kind != .subtitle, periods > 1 { segment.timeOffset = s.timeOffset }
            segments.append(segment)
        }
        var t = DownloadTrack(kind: kind, bitrate: rep.bandwidth, segments: segments)
        if let i = rep.initialization {
            try DownloadPlanner.allowed(i.url)
            t.initSection = i.url
            if let r = i.range {
                guard let converted = byteRange(r) else { throw DownloadError("\(name): an unusable Initialization range") }
                t.initRange = converted
            }
        }
        return t
    }

    /// A manifest's byte range (already bounded by its parser: offsets and lengths under 2^50)
    /// as the downloader's; nil when it does not fit a segment.
    static func byteRange(_ r: DASHManifest.ByteRange) -> HLSMediaPlaylist.ByteRange? {
        guard r.length > 0, r.length <= Int64(DownloadState.maxSegmentBytes), let offset = Int(exactly: r.offset),
              let length = Int(exactly: r.length) else { return nil }
        return HLSMediaPlaylist.ByteRange(offset: offset, length: length)
    }
}
