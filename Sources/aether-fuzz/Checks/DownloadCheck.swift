import AetherBase
import AetherMedia
import AetherStreaming
import AetherSubtitles
import AetherDownload
import Foundation

/// The download's readers of outside text run over arbitrary bytes (the `download` fuzz target
/// of `aether-fuzz`): the first byte picks one, the rest is its input.
/// - 0: the state journal, against a fixed two-track plan (one with an init section);
/// - 1: WebVTT segments (split at NUL bytes) joined, then written out;
/// - 2: the HLS planner, every URL answering with the input (master and media playlists alike),
///   for each variant choice and rendition list;
/// - 3: the DASH planner, the input as the manifest (and as every `SegmentBase` index read),
///   for each variant choice and rendition list.
/// Each checks what the reader promises; a broken promise traps (a crash to the fuzzer).
enum DownloadCheck {
    static let plan: DownloadPlan = {
        var video = DownloadTrack(kind: .video, bitrate: 1, segments: (0..<4).map { DownloadSegment(uri: "http://h/v\($0).ts", duration: 2, sequence: $0) })
        video.initSection = "http://h/init.mp4"
        let audio = DownloadTrack(kind: .audio, bitrate: 1, segments: (0..<3).map { DownloadSegment(uri: "http://h/a\($0).ts", duration: 2, sequence: $0) })
        return DownloadPlan(source: "http://h/m.m3u8", tracks: [video, audio])
    }()

    @discardableResult
    static func run(_ bytes: [UInt8]) -> Int {
        guard let selector = bytes.first else { return 0 }
        let input = Array(bytes.dropFirst())
        switch selector % 4 {
        case 0:
            // Any fingerprint line the input carries is tried as the plan's.
            let text = String(decoding: input.prefix(200), as: UTF8.self)
            let fingerprint = text.split(separator: "\n").dropFirst().first.map { String($0.dropFirst(5)) } ?? ""
            guard let state = try? DownloadState.parse(input, plan: plan, fingerprint: fingerprint) else { return 0 }
            for (key, entry) in state.done {
                precondition(plan.tracks.indices.contains(key.track) && key.segment >= -1 && key.segment < plan.tracks[key.track].segments.count)
                precondition(DownloadState.isDigest(entry.sha256) && entry.bytes >= 0)
            }
            return state.done.count
        case 1:
            let segments = input.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
            // Period offsets (a DASH download's), hostile ones among them.
            guard let cues = try? WebVTTJoin.cues(segments, offsets: [0, 10, .nan, -1, 1e300, .infinity]) else { return 0 }
            precondition(cues.count <= WebVTTJoin.maxCues)
            for cue in cues { precondition(cue.start.isFinite && cue.end >= cue.start && cue.end <= WebVTTJoin.maxSeconds + 1e6) }
            let document = WebVTTJoin.document(cues, shift: 1.5)
            // What we write reads back (every cue that ends after the shift).
            let again = (try? WebVTTJoin.cues([Array(document.utf8)])) ?? []
            precondition(again.count <= cues.count)
            return cues.count
        default:
            let text = String(decoding: input, as: UTF8.self)
            var found = 0
            for preference in [VariantPreference.min, .max, .atMost(1_000_000)] {
                for languages in [[], ["fra", "eng"], ["all"], ["no"]] {
                    var request = DownloadRequest()
                    request.preference = preference
                    request.audioLanguages = languages
                    request.subtitleLanguages = languages
                    let plan: DownloadPlan?
                    if selector % 4 == 2 {
                        plan = try? HLSDownloadPlanner.plan(url: "http://h/m.m3u8", request: request, fetch: { _ in text })
                    } else {
                        plan = try? DASHDownloadPlanner.plan(url: "http://h/m.mpd", text: text, request: request, fetch: { _, _ in input })
                    }
                    guard let plan else { continue }
                    check(plan)
                    found += plan.segmentCount
                }
            }
            return found
        }
    }

    /// What every plan promises: only http(s) URLs with a host, keys AES-128 with a URI and a
    /// 16-byte IV, byte ranges non-empty, some track, at most one video stream and first, each
    /// track that continues another (``DownloadTrack/continues``) after one of its kind.
    static func check(_ plan: DownloadPlan) {
        func isURL(_ uri: String) -> Bool {
            let lower = uri.lowercased()
            return (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && URLComponents(string: uri)?.host?.isEmpty == false
        }
        // A later DASH period's segments that need their own init section are a track that
        // continues the one before (the same output stream): streams are the other tracks.
        precondition(!plan.streams.isEmpty && plan.streams.dropFirst().allSatisfy { $0.kind != .video }, "a second video stream, or video not first")
        for (n, track) in plan.tracks.enumerated() where track.continues {
            precondition(n > 0 && plan.tracks[n - 1].kind == track.kind, "a track that continues none of its kind")
        }
        for track in plan.tracks {
            precondition(track.initSection.map(isURL) != false, "an init section that is not an http(s) URL passed")
            precondition(track.initRange.map { $0.length > 0 && $0.offset >= 0 } != false)
            for segment in track.segments {
                precondition(isURL(segment.uri), "a segment that is not an http(s) URL passed")
                precondition(segment.byteRange.map { $0.length > 0 && $0.offset >= 0 } != false)
                if let key = segment.key { precondition(key.method == "AES-128" && key.uri != nil && key.iv.map { $0.count == 16 } != false) }
            }
        }
        _ = plan.fingerprint(format: "matroska")
    }
}
