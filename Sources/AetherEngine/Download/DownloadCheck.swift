import Foundation

/// The download's readers of outside text run over arbitrary bytes (the `download` fuzz target
/// of `aether-fuzz`): the first byte picks one, the rest is its input.
/// - 0: the state journal, against a fixed two-track plan (one with an init section);
/// - 1: WebVTT segments (split at NUL bytes) joined, then written out;
/// - 2: the HLS planner, every URL answering with the input (master and media playlists alike),
///   for each variant choice and rendition list.
/// Each checks what the reader promises; a broken promise traps (a crash to the fuzzer).
public enum DownloadCheck {
    static let plan: DownloadPlan = {
        var video = DownloadTrack(kind: .video, bitrate: 1, segments: (0..<4).map { DownloadSegment(uri: "http://h/v\($0).ts", duration: 2, sequence: $0) })
        video.initSection = "http://h/init.mp4"
        let audio = DownloadTrack(kind: .audio, bitrate: 1, segments: (0..<3).map { DownloadSegment(uri: "http://h/a\($0).ts", duration: 2, sequence: $0) })
        return DownloadPlan(source: "http://h/m.m3u8", tracks: [video, audio])
    }()

    @discardableResult
    public static func run(_ bytes: [UInt8]) -> Int {
        guard let selector = bytes.first else { return 0 }
        let input = Array(bytes.dropFirst())
        switch selector % 3 {
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
            guard let cues = try? WebVTTJoin.cues(segments) else { return 0 }
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
                    guard let plan = try? HLSDownloadPlanner.plan(url: "http://h/m.m3u8", request: request, fetch: { _ in text }) else { continue }
                    for track in plan.tracks {
                        for segment in track.segments {
                            let lower = segment.uri.lowercased()
                            precondition((lower.hasPrefix("http://") || lower.hasPrefix("https://")) && URLComponents(string: segment.uri)?.host?.isEmpty == false,
                                         "a segment that is not an http(s) URL passed")
                            if let key = segment.key { precondition(key.method == "AES-128" && key.uri != nil && key.iv.map { $0.count == 16 } != false) }
                        }
                    }
                    found += plan.segmentCount
                    _ = plan.fingerprint(format: "matroska")
                }
            }
            return found
        }
    }
}
