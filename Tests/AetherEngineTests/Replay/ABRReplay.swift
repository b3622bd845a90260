import AetherBase
@testable import AetherPlayback
@testable import AetherStreaming
import Foundation

/// A bit-rate switching run replayed on a manual clock, so a 90 s throttled schedule takes
/// milliseconds: the real ``AdaptiveSwitcher`` (its ``AdaptivePolicy`` and ``AdaptiveRule``)
/// over real playlists, a link whose rate follows a schedule, and a player buffer.
///
/// - The link: a download takes its bytes over the rate of the moment it was asked for (the
///   proxy paces each response at the rule it started under), 16 KiB at a time as `NetworkSession.readWhole` reads it, asking the
///   switcher's abandon rule after each chunk; a whole download is timed into
///   ``AdaptiveSwitcher/downloaded(_:bytes:seconds:)`` as `openWhole` does.
/// - The player: the demuxer fetches the places on the timeline in order, at most
///   `networkCacheSeconds` ahead of the playhead; a place's media joins the buffer once its
///   segments (the planned one and any fetched beside it, e.g. an audio rendition's) have
///   arrived. The playhead moves in media time; under `bufferingLowWater` ahead it stops (a
///   rebuffer, counted as `PlaybackSession`'s cache loop counts it) and goes on once
///   `cachePauseWait` seconds are in again. The thresholds are the player's own.
/// - Waits the switcher asks for (live reloads) pass on the clock, and the buffer drains meanwhile.
final class ABRReplay: @unchecked Sendable {  // driven from the test's one thread; the switcher reads `ahead` on it
    /// A link whose rate changes at given seconds from the start.
    struct Link {
        /// Bits per second from each time on, ascending; the first from 0.
        var steps: [(from: Double, bitsPerSecond: Double)]

        /// The issue's schedule: 6 Mb/s, 1 Mb/s from `slow`, 6 Mb/s again from `fast`.
        static func throttled(slow: Double, fast: Double) -> Link {
            Link(steps: [(0, 6_000_000), (slow, 1_000_000), (fast, 6_000_000)])
        }

        func rate(at t: Double) -> Double { steps.last { $0.from <= t }?.bitsPerSecond ?? steps[0].bitsPerSecond }

        /// Seconds `bytes` of a response take when it was asked for at `t`: `fault_proxy.py`
        /// picks a response's pace when the request comes and keeps it to the end.
        func seconds(_ bytes: Int, askedAt t: Double) -> Double { Double(bytes) * 8 / rate(at: t) }
    }

    /// One download as a server's log would show it.
    struct Fetch {
        var url: String
        var range: HLSMediaPlaylist.ByteRange?
        /// The rung it was planned from; nil: fetched as the demuxer named it (not the switcher's).
        var rung: Int?
        var start: Double
        var seconds: Double
        /// Given up for a lower rung's segment (hls.js's abandon rule).
        var abandoned = false
        /// Seconds buffered when it started.
        var ahead = 0.0
    }

    /// One place on the timeline: the anchor's segment URL, its media seconds, and what the
    /// demuxer fetches beside it (an audio rendition's segment).
    struct Place {
        var anchor: String
        var duration: Double
        var beside: [String] = []
    }

    static let chunk = 16 << 10
    static let cacheSeconds = PlayerOptions(time: .monotonic).stream.networkCacheSeconds
    static let lowWater = PlaybackSession.bufferingLowWater
    static let pauseWait = PlayerOptions(time: .monotonic).stream.cachePauseWait

    let clock = ManualTimeSource()
    let link: Link
    let switcher: AdaptiveSwitcher
    /// Bytes of a URL (a byte range: its length).
    let size: (String, HLSMediaPlaylist.ByteRange?) -> Int

    private(set) var fetches: [Fetch] = []
    /// URLs fetched beside a place that the switcher planned (it must leave them alone).
    private(set) var plannedBeside: [String] = []
    /// Anchor segments the switcher had no plan for.
    private(set) var unplanned: [String] = []
    /// Places on the timeline demuxed.
    private(set) var demuxed = 0
    private(set) var playhead = 0.0
    private(set) var demuxedUntil = 0.0
    private(set) var rebuffers = 0
    /// Media seconds where playback stopped for lack of data.
    private(set) var stalls: [Double] = []
    private(set) var playing = false
    private var buffering = false
    private var ended = false

    /// `makeSwitcher` gets the clock to build the switcher on.
    init(link: Link, size: @escaping (String, HLSMediaPlaylist.ByteRange?) -> Int, makeSwitcher: (TimeSource) throws -> AdaptiveSwitcher) rethrows {
        self.link = link
        self.size = size
        switcher = try makeSwitcher(clock.source)
        switcher.setBufferLevel { [unowned self] in max(0, self.demuxedUntil - self.playhead) }
    }

    var now: Double { clock.seconds }

    /// Lets `dt` seconds pass (whole milliseconds): the playhead moves while playing.
    func pass(_ dt: Double) {
        let before = clock.milliseconds
        clock.advance(seconds: dt)
        drain(Double(clock.milliseconds - before) / 1000)
    }

    private func drain(_ dt: Double) {
        guard playing, !buffering else { return }
        if ended {
            playhead = min(demuxedUntil, playhead + dt)
            return
        }
        let room = demuxedUntil - Self.lowWater - playhead
        if dt < room {
            playhead += dt
            return
        }
        playhead += max(0, room)
        buffering = true
        if playhead > 1 {
            rebuffers += 1
            stalls.append(playhead)
        }
    }

    private func arrived(_ seconds: Double) {
        demuxedUntil += seconds
        if buffering, demuxedUntil - playhead >= Self.pauseWait { buffering = false }
    }

    /// Downloads `plan` over the link, asking the abandon rule every 16 KiB; returns the plan
    /// whose bytes arrived.
    @discardableResult
    func download(_ plan: AdaptiveSwitcher.Plan) -> AdaptiveSwitcher.Plan {
        let total = size(plan.url, plan.range)
        let start = now, ahead = demuxedUntil - playhead
        var loaded = 0
        while loaded < total {
            let chunk = min(Self.chunk, total - loaded)
            pass(link.seconds(chunk, askedAt: start))
            loaded += chunk
            if let replacement = switcher.abandon(plan, loaded: loaded, elapsed: now - start) {
                fetches.append(Fetch(url: plan.url, range: plan.range, rung: plan.rung, start: start, seconds: now - start, abandoned: true, ahead: ahead))
                return download(replacement)
            }
        }
        switcher.downloaded(plan, bytes: total, seconds: now - start)
        fetches.append(Fetch(url: plan.url, range: plan.range, rung: plan.rung, start: start, seconds: now - start, ahead: ahead))
        return plan
    }

    /// Fetches `url` as the demuxer named it (the switcher asked first, as `NetworkSession` does).
    private func fetchBeside(_ url: String) {
        if switcher.plan(for: url) != nil { plannedBeside.append(url) }
        let start = now
        pass(link.seconds(size(url, nil), askedAt: start))
        fetches.append(Fetch(url: url, range: nil, rung: nil, start: start, seconds: now - start))
    }

    /// The demuxer's turn for `place`: waits while the buffer is full, fetches the planned
    /// segment and what goes beside it, and adds the place's media to the buffer.
    func demux(_ place: Place) {
        if playing, demuxedUntil - playhead > Self.cacheSeconds { pass(demuxedUntil - playhead - Self.cacheSeconds) }
        if let plan = switcher.plan(for: place.anchor, wait: { [unowned self] in self.pass($0); return true }) {
            download(plan)
        } else {
            unplanned.append(place.anchor)
        }
        place.beside.forEach(fetchBeside)
        arrived(place.duration)
        demuxed += 1
    }

    /// The session starts: the switcher is armed and the playhead moves.
    func start() {
        switcher.arm()
        playing = true
    }

    /// Plays a VOD timeline: the first `probe` places before the session starts (the open
    /// and probe, unarmed), the rest until `until` seconds or the end, then on to `until`.
    func play(_ places: [Place], probe: Int = 1, until: Double) {
        for (k, place) in places.enumerated() {
            if k == probe { start() }
            if now >= until { break }
            demux(place)
        }
        if !playing { start() }
        ended = true
        pass(until - now)
    }

    // MARK: what the e2e tests read from the proxy's log and the stats file

    /// Fetches of the switcher's segments, in order.
    var planned: [Fetch] { fetches.filter { $0.rung != nil } }

    /// Whether each switch went up, in order.
    var directions: [Bool] { switcher.status.switches.map { $0.toBandwidth > $0.fromBandwidth } }

    /// How often the switches change direction.
    var turns: Int { zip(directions, directions.dropFirst()).filter { $0 != $1 }.count }

    /// Seconds from `t` to the first fetch of `rung` that starts after it.
    func first(_ rung: Int, after t: Double) -> Double? {
        planned.first { $0.rung == rung && $0.start > t }.map { $0.start - t }
    }

    /// The fetches as lines for a failure's message: start, rung, seconds taken, buffer.
    var trace: String {
        fetches.map { f in
            String(format: "%.1f %@%@ %.2fs ahead %.1f", f.start, f.rung.map { "r\($0)" } ?? "beside", f.abandoned ? " abandoned" : "", f.seconds, f.ahead)
        }.joined(separator: "; ")
    }

    /// Switches as the e2e tests print them.
    var moves: [String] {
        switcher.status.switches.map { String(format: "%d→%d at %.0f s: %@", $0.fromVariant, $0.toVariant, $0.position, $0.reason) }
    }
}
