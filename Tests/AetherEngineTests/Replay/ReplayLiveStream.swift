import AetherBase
@testable import AetherStreaming
import Foundation

/// A VOD HLS ladder played out live on the replay's clock, as `Tests/Scripts/live_ladder.py`
/// does: each variant's playlist lists the last ``window`` segments published, ``start`` at
/// once and one more every segment duration, media sequence numbers from 0 (plus a variant's
/// `offset`) and a program date-time per segment. `phase`: seconds since the last publication
/// when the player opens (at clock 0). Reads of the playlists are logged with their times.
final class ReplayLiveStream: @unchecked Sendable {  // read from the test's one thread
    static let window = 6, start = 3
    static let origin = 1_700_000_000.0

    /// The fixture's master, and each variant's segments (absolute fixture URLs) and durations.
    let dir: String
    let masterText: String
    let segments: [[(uri: String, duration: Double)]]
    let offsets: [Int]
    let phase: Double
    /// The segments of the audio rendition played beside the video (`language`), by number.
    let audio: [String]
    private(set) var reads: [(url: String, at: Double)] = []

    init(_ dir: String, phase: Double, offsets: [Int] = [], language: String? = nil) throws {
        self.dir = dir
        self.phase = phase
        let masterURL = ReplayLadder.base + dir + "/master.m3u8"
        guard let text = ReplayLadder.text(masterURL), let master = HLSMasterPlaylist.parse(text, base: masterURL) else {
            throw ReplayLadder.Missing(what: masterURL)
        }
        masterText = text
        segments = try master.variants.map { v in
            guard let uri = v.uri, let t = ReplayLadder.text(uri) else { throw ReplayLadder.Missing(what: dir) }
            return try HLSMediaPlaylist.parse(t, base: uri).segments.map { ($0.uri, $0.duration) }
        }
        self.offsets = offsets
        if let language {
            guard let r = master.renditions.first(where: { $0.type == "AUDIO" && $0.language == language }), let uri = r.uri,
                  let t = ReplayLadder.text(uri) else { throw ReplayLadder.Missing(what: "rendition \(language)") }
            audio = try HLSMediaPlaylist.parse(t, base: uri).segments.map(\.uri)
        } else {
            audio = []
        }
    }

    /// What the demuxer fetches beside the anchor's segment `sequence`: the rendition's.
    func beside(_ sequence: Int) -> [String] { audio.indices.contains(sequence) ? [audio[sequence]] : [] }

    /// Where the live playlists are served.
    static let live = ReplayLadder.base + "live/"
    var masterURL: String { Self.live + "master.m3u8" }
    func playlistURL(_ variant: Int) -> String { Self.live + "v\(variant)/index.m3u8" }

    /// Segments published by `t`.
    func published(at t: Double) -> Int {
        min(segments[0].count, Self.start + Int(((t + phase) / (segments[0].first?.duration ?? 2)).rounded(.down)))
    }

    /// `variant`'s live playlist at `t`.
    func text(_ variant: Int, at t: Double) -> String {
        let n = published(at: t), first = max(0, n - Self.window), shift = offsets.indices.contains(variant) ? offsets[variant] : 0
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first + shift)\n"
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for k in first..<n {
            text += "#EXT-X-PROGRAM-DATE-TIME:\(f.string(from: Date(timeIntervalSince1970: Self.origin + Double(k) * 2)))\n"
            text += "#EXTINF:\(segments[variant][k].duration),\n\(segments[variant][k].uri)\n"
        }
        return text
    }

    /// A read of a live playlist URL at `t` (logged).
    func read(_ url: String, at t: Double) -> String? {
        reads.append((url, t))
        guard let v = (0..<segments.count).first(where: { playlistURL($0) == url }) else { return nil }
        return text(v, at: t)
    }

    /// The ladder the player makes of the live master, `auto`'s start variant as the anchor
    /// (`preference`: another start).
    func ladder(policy: AdaptivePolicy = AdaptivePolicy(), preference: VariantPreference = .auto) throws -> ReplayLadder {
        guard let master = HLSMasterPlaylist.parse(masterText, base: masterURL),
              let anchor = VariantChooser.choose(master.variants, preference: preference, range: .auto) else { throw ReplayLadder.Missing(what: "live") }
        let ladder = VariantChooser.ladder(master.variants, anchor: anchor, limit: policy.maxRungs)
        let playlist = try HLSMediaPlaylist.parse(text(anchor, at: 0), base: playlistURL(anchor))
        return ReplayLadder(variants: master.variants, ladder: ladder, anchor: anchor, anchorPlaylist: playlist, places: [],
                            playlists: [], live: self, policy: policy)
    }
}

extension ABRReplay {
    /// Plays a live anchor (`url`, its first copy the switcher's) as libavformat's hls demuxer
    /// does: from the third segment before the newest (its `live_start_index`), each next media sequence number once a
    /// copy lists it; the playlist read again (`reload`, handed to the switcher as
    /// `NetworkSession` does) a segment duration after the last read, half the target duration
    /// after a read that brought nothing new. The first `probe` segments before the session
    /// starts; the playhead then runs `startLag` seconds before the next segment is asked for.
    /// `beside`: what the demuxer fetches with each number (an audio rendition's segment).
    func playLive(anchor url: String, first copy: HLSMediaPlaylist, reload: (Double) -> String, beside: (Int) -> [String] = { _ in [] },
                  probe: Int = 1, startLag: Double = 0, until: Double) throws {
        var copy = copy
        var lastRead = 0.0, interval = copy.segments.last?.duration ?? 2
        var next = copy.segments[max(0, copy.segments.count - 3)].sequence
        var demuxed = 0
        while now < until {
            if let k = copy.index(sequence: next) {
                if demuxed == probe {
                    start()
                    pass(startLag)
                }
                demux(Place(anchor: copy.segments[k].uri, duration: copy.segments[k].duration, beside: beside(next)))
                demuxed += 1
                next += 1
                continue
            }
            pass(lastRead + interval - now)
            let text = reload(now)
            switcher.playlistFetched(url, text: text)
            let fresh = try HLSMediaPlaylist.parse(text, base: url)
            interval = (fresh.segments.last?.sequence ?? 0) > (copy.segments.last?.sequence ?? 0)
                ? (fresh.segments.last?.duration ?? 2) : (fresh.targetDuration ?? 2) / 2
            copy = fresh
            lastRead = now
        }
    }
}
