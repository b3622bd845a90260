import AetherMedia
import AetherStreaming
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Turns a static DASH manifest into a ``DownloadPlan`` through ``DownloadPlanner``: every video
/// representation (periods joined, ``DASHManifest/tracks``) is a variant, each audio adaptation
/// set a rendition (its representation by `--hls-bitrate`: the lowest for `min`, else the
/// highest, as the player takes it), each WebVTT text set a subtitle rendition. A chosen
/// representation's track is its init section (`initialization`, a `SegmentBase`'s
/// `Initialization` range) and its segments (template, timeline, list, or the `sidx`
/// references of a `SegmentBase`, fetched by range here).
///
/// Periods joined: where a later period's representation needs another init section, its
/// segments are a track of their own that ``DownloadTrack/continues`` the one before (a demuxer
/// of its own at the remux, the same output stream); one in another codec (by `@codecs`) is
/// left out, one note each, since one output stream cannot carry two codecs.
///
/// Refuses (one line): what ``DASHManifest/parse(_:base:now:limits:)`` refuses (a URL that is
/// not http(s), a timeline past its budgets, a number out of range), a dynamic (live) manifest,
/// no video or audio representation with segments. A manifest of sound only gives the
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
            let reps = track.representations.filter { !$0.segments.isEmpty && (track.contentType == .audio || $0.isWebVTT) }
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
        var periodsLeftOut: [String] = []
        do throws(DownloadError) {
            plan = try DownloadPlanner.plan(source: url, variants: variants, renditions: renditions, request: request) {
                (kind: DownloadTrack.Kind, key: String, _: Int) throws(DownloadError) -> [DownloadTrack] in
                guard let rep = representations[key] else { throw DownloadError("no representation '\(TextSanitizer.clean(key))'") }
                let (tracks, notes) = try Self.tracks(kind, rep, periods: manifest.periods.count)
                periodsLeftOut += notes
                return tracks
            }
        } catch {
            // Nothing left to write: say what the reader left out and why.
            throw DownloadError(error.message + manifest.leftOutSummary)
        }
        // What the reader left out, one line each (the rest is written).
        plan.notes += manifest.leftOut + periodsLeftOut
        // Text sets --slang asked for by language (or all) that are not WebVTT: said, not fetched.
        for r in DownloadPlanner.pick(unsupported, languages: request.subtitleLanguages, fallbackToFirst: false) {
            plan.notes.append("subtitles\(r.language.map { " in '\(TextSanitizer.clean($0))'" } ?? "") left out: only WebVTT text sets can be downloaded (not TTML or stpp)")
        }
        return plan
    }

    /// A representation's init section and segments as a track (every URL checked: http(s) with a
    /// host), and one more track (``DownloadTrack/continues``) from each later period that needs
    /// an init section of its own; a period in another codec than the first (by `@codecs`) is
    /// left out, a note each. `periods`: how many the manifest has (with more than one, each
    /// segment's media is moved onto the one timeline, as playback does).
    static func tracks(_ kind: DownloadTrack.Kind, _ rep: DASHManifest.Representation,
                       periods: Int = 1) throws(DownloadError) -> ([DownloadTrack], notes: [String]) {
        let name = "representation '\(TextSanitizer.clean(String(rep.id.prefix(40))))'"
        // Runs of segments by the init section they need.
        var runs: [(initialization: DASHManifest.Resource?, codecs: String?, segments: [DASHManifest.Segment])] = []
        for s in rep.segments {
            let initialization = s.initialization ?? rep.initialization
            if let last = runs.last, last.initialization == initialization, last.codecs == (s.codecs ?? rep.codecs) {
                runs[runs.count - 1].segments.append(s)
            } else {
                runs.append((initialization, s.codecs ?? rep.codecs, [s]))
            }
        }
        var tracks: [DownloadTrack] = []
        var notes: [String] = []
        let family = DASHManifest.Representation.family(rep.codecs)
        for run in runs {
            if let other = DASHManifest.Representation.family(run.codecs), let family, other != family {
                let first = run.segments[0]
                notes.append("\(kind.rawValue) of period \(first.periodIndex + 1) (from \((first.start * 1000).rounded() / 1000) s) left out: its codec "
                             + "'\(TextSanitizer.clean(String(other.prefix(16))))' cannot go on in the '\(TextSanitizer.clean(String(family.prefix(16))))' stream before it")
                continue
            }
            var segments: [DownloadSegment] = []
            segments.reserveCapacity(run.segments.count)
            for s in run.segments {
                try DownloadPlanner.allowed(s.resource.url)
                var range: HLSMediaPlaylist.ByteRange?
                if let r = s.resource.range {
                    guard let converted = byteRange(r) else { throw DownloadError("\(name): an unusable byte range") }
                    range = converted
                }
                var segment = DownloadSegment(uri: s.resource.url, duration: s.duration, sequence: segments.count, byteRange: range)
                if kind == .subtitle { segment.cueOffset = s.periodStart }
                if kind != .subtitle, periods > 1 { segment.timeOffset = s.timeOffset }
                segments.append(segment)
            }
            var t = DownloadTrack(kind: kind, bitrate: rep.bandwidth, segments: segments)
            t.continues = !tracks.isEmpty
            if let i = run.initialization {
                try DownloadPlanner.allowed(i.url)
                t.initSection = i.url
                if let r = i.range {
                    guard let converted = byteRange(r) else { throw DownloadError("\(name): an unusable Initialization range") }
                    t.initRange = converted
                }
            }
            tracks.append(t)
        }
        return (tracks, notes)
    }

    /// A manifest's byte range (already bounded by its parser: offsets and lengths under 2^50)
    /// as the downloader's; nil when it does not fit a segment.
    static func byteRange(_ r: DASHManifest.ByteRange) -> HLSMediaPlaylist.ByteRange? {
        guard r.length > 0, r.length <= Int64(DownloadState.maxSegmentBytes), let offset = Int(exactly: r.offset),
              let length = Int(exactly: r.length) else { return nil }
        return HLSMediaPlaylist.ByteRange(offset: offset, length: length)
    }
}
