import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Switches an HLS stream (or a DASH one translated to HLS playlists whose fMP4 segments are
/// served as MPEG-TS, ``DASHPlaylists``) between variants at segment boundaries while it plays.
///
/// libavformat plays one variant's media playlist (the *anchor*, the variant chosen at start);
/// every segment it opens goes through ``NetworkSession``, which asks ``plan(for:wait:)`` which
/// variant's segment at the same place on the timeline to fetch instead. The segments of a
/// switchable ladder are aligned (same start times, each starting with a keyframe) and carry
/// their audio and video muxed (MPEG-TS, same streams), so the demuxer reads one continuous
/// stream, audio and video switch together, and the decoder picks up the new parameters in band.
/// Each segment is downloaded whole and timed (``downloaded(_:bytes:seconds:)``) to feed the
/// source's one throughput estimate, which ``monitor`` owns (the figure the stats, telemetry
/// and IPC show). A variant whose playlist cannot be read or is refused, uses keys or
/// init sections, or byte ranges the switcher does not serve (``refusal(_:)``: an unreadable one
/// when ``servesRanges``, any otherwise), or whose segments do not line up with the anchor's is
/// left out of the ladder when first wanted (logged); byte-range variants of an HLS master switch
/// (``servesRanges``). Before ``arm()`` (during the open and probe) the anchor's own segments are
/// fetched.
///
/// **VOD**: a segment of another variant stands in for the anchor's that starts at the same
/// time (cumulative durations from the playlist's first segment).
///
/// **Live** (the anchor has no `EXT-X-ENDLIST`): libavformat re-reads the anchor's playlist
/// itself; ``NetworkSession`` reads each such reload whole and hands it here
/// (``playlistFetched(_:playlist:)``) before serving it, so the anchor's copy is the demuxer's. Another
/// variant's playlist is read again only when a segment is wanted from it that its copy does not
/// list yet, and never sooner than its target duration after the last read (the HLS rule for
/// reloads): the variant playing waits for that (at most two reads; then it is left out as a
/// variant that stopped updating), a candidate for a switch is skipped for this segment instead.
/// Segments are matched by **media sequence number** (the HLS rule: the same number is the same
/// place in every variant). When the numbers do not line up (the same number carries program
/// date-times further apart than the match tolerance, or the windows share no number while their
/// dates overlap) that variant is matched by `EXT-X-PROGRAM-DATE-TIME` instead (logged once);
/// without dates it is left out. Cumulative time is not used for live: each variant's window
/// slides on its own, so its starts share no origin. A reload whose media sequence goes back, or
/// that turns VOD while the anchor is live (or the other way), leaves the variant out.
///
/// **Live DASH** (a dynamic MPD translated, ``DASHSource``): each representation's playlist
/// numbers its segments by `$Number$` (the same number is the same place in every
/// representation of an aligned set) and dates them from `availabilityStartTime` (so a
/// representation whose `startNumber` differs is matched by date, as above). The demuxer's
/// reloads of the anchor are served from memory and handed here like an HTTP reload; another
/// representation's playlist comes from the same translation (``localLoader``), so a copy that
/// does not list a segment yet is read again at once.
///
/// Only the anchor's segments are replaced; anything else libavformat opens passes through.
/// So a master whose sound is in separate audio renditions (read whole by libavformat's hls
/// demuxer) switches its video variants while the chosen rendition plays on, and a translated
/// DASH manifest's audio set likewise; a DASH `SegmentBase`/`SegmentList` fragment is named by
/// its file and range (`#aether-range=`), so it plans like any other segment.
///
/// Called from the demux thread (``plan(for:wait:)``, ``downloaded(_:bytes:seconds:)``,
/// ``playlistFetched(_:playlist:)``) and read from any thread (``status``); its state is behind one
/// lock, never held across I/O.
package final class AdaptiveSwitcher: Sendable {
    package struct Plan: Sendable, Equatable {
        /// The URL to fetch.
        package var url: String
        /// The ladder rung it belongs to.
        package var rung: Int
        package var mediaSeconds: Double
        /// The anchor's segment it stands for (its URL in the anchor's playlist).
        package var anchorURL = ""
        /// Only these bytes of ``url`` (an `EXT-X-BYTERANGE` segment), nil: all of it.
        package var range: HLSMediaPlaylist.ByteRange? = nil
    }

    /// The plan fetching `segment` of `rung`: its URL and byte range (a range named in a
    /// rewritten anchor playlist, ``HLSMediaPlaylist/rangesAsURLs(_:base:)``, or its own
    /// `EXT-X-BYTERANGE`).
    private func fetching(_ segment: HLSMediaPlaylist.Segment, rung: Int, anchorURL: String) -> Plan {
        if let range = segment.byteRange {
            return Plan(url: segment.uri, rung: rung, mediaSeconds: segment.duration, anchorURL: anchorURL, range: range)
        }
        if servesRanges, let (url, range) = HLSMediaPlaylist.rangedURL(segment.uri) {
            return Plan(url: url, rung: rung, mediaSeconds: segment.duration, anchorURL: anchorURL, range: range)
        }
        return Plan(url: segment.uri, rung: rung, mediaSeconds: segment.duration, anchorURL: anchorURL)
    }

    /// The anchor's own segment at `url` (what the demuxer asked for), to fetch when the planned
    /// one failed.
    func own(_ url: String, mediaSeconds: Double) -> Plan {
        if servesRanges, let (plain, range) = HLSMediaPlaylist.rangedURL(url) {
            return Plan(url: plain, rung: anchorRung, mediaSeconds: mediaSeconds, anchorURL: url, range: range)
        }
        return Plan(url: url, rung: anchorRung, mediaSeconds: mediaSeconds, anchorURL: url)
    }

    /// Live: reads of the playing variant's playlist for one segment before it is left out.
    static let liveReadsForCurrent = 2

    let policy: AdaptivePolicy
    let anchorRung: Int
    /// The anchor's media playlist URL.
    private let anchorURI: String?
    /// The anchor is live (no `EXT-X-ENDLIST`).
    let isLive: Bool
    let state: Guarded<SwitchState>
    private let bufferLevel = Guarded<(@Sendable () -> Double)?>(nil)
    /// Reads a variant's media playlist (nil when it cannot be read).
    let loader: @Sendable (String) -> String?
    /// The loader reads from memory (a translated DASH manifest's playlists, all made from the
    /// one manifest the demuxer's copy came from): live, a copy that does not list a segment is
    /// read again at once, not a target duration after the last read.
    let localLoader: Bool
    /// Byte-range playlists switch (HLS): the anchor's playlist is served rewritten
    /// (``HLSMediaPlaylist/rangesAsURLs(_:base:)``), another variant's ranges go in the plan.
    let servesRanges: Bool
    /// What every time the switcher decides by is read from: the hold after a switch, when a
    /// live playlist was read and when it may be read again.
    let clock: TimeSource
    /// The source's network status and its one throughput estimate (``NetworkMonitor``, fed by
    /// segments): the session counts its bytes there, the switcher samples and reads it.
    package let monitor: NetworkMonitor

    /// `ladder`: indices into `variants`, rates ascending; `anchor`: the rung libavformat plays,
    /// whose media playlist is `anchorPlaylist`.
    package init(variants: [StreamVariant], ladder: [Int], anchor: Int, anchorPlaylist: HLSMediaPlaylist, policy: AdaptivePolicy,
         localLoader: Bool = false, servesRanges: Bool = false, clock: TimeSource, monitor: NetworkMonitor? = nil,
         loader: @escaping @Sendable (String) -> String?) {
        var rungs = ladder.map { SwitchState.Rung(variant: variants[$0], index: $0) }
        rungs[anchor].playlist = anchorPlaylist
        rungs[anchor].fetchedAt = clock.seconds
        self.clock = clock
        self.monitor = monitor ?? NetworkMonitor(feed: .segments, policy: policy.estimator, clock: clock)
        self.anchorRung = anchor
        self.anchorURI = rungs[anchor].variant.uri
        self.isLive = !anchorPlaylist.isEnded
        self.policy = policy
        self.loader = loader
        self.localLoader = localLoader
        self.servesRanges = servesRanges
        state = Guarded(SwitchState(rungs: rungs, current: anchor, anchor: AnchorCopy(playlist: anchorPlaylist)))
    }

    /// Seconds demuxed ahead of the playhead (set by the session before it starts).
    package func setBufferLevel(_ level: @escaping @Sendable () -> Double) { bufferLevel.withLock { $0 = level } }

    /// From now on segments may come from other variants.
    package func arm() { state.withLock { $0.armed = true } }

    package var status: AdaptiveStatus {
        let estimate = monitor.throughput.estimate
        return state.withLock { s in
            AdaptiveStatus(variant: s.rungs[s.current].variant, variantIndex: s.rungs[s.current].index,
                           estimate: estimate, switches: s.history.switches, switchCount: s.history.count)
        }
    }

    /// Whether `url` is the media playlist of a variant of the ladder (the session then reads it
    /// whole and hands it to ``playlistFetched(_:playlist:)``).
    func watches(_ url: String) -> Bool {
        state.withLock { s in s.rungs.contains { $0.variant.uri == url } }
    }

    /// The text to serve the demuxer for `url`, a variant's media playlist (``watches(_:)``) as
    /// read: the anchor's with its byte ranges named in its URLs (``servesRanges``), else nil
    /// (served as read).
    package func served(_ url: String, text: String) -> String? {
        guard servesRanges, url == anchorURI else { return nil }
        return HLSMediaPlaylist.rangesAsURLs(text, base: url)
    }

    /// The demuxer was served `playlist` for `url`, a variant's (``PlaylistOffer``): the anchor's
    /// becomes the copy segments are looked up in (live: its reload); another variant's is kept
    /// when none was read yet (so it is not read twice).
    package func playlistFetched(_ url: String, playlist parsed: HLSMediaPlaylist) {
        let now = clock.seconds
        state.withLock { s in
            if url == anchorURI {
                s.anchor.reloaded(parsed)
                s.rungs[anchorRung].playlist = parsed
                s.rungs[anchorRung].fetchedAt = now
            } else if let r = s.rungs.firstIndex(where: { $0.variant.uri == url }), s.rungs[r].playlist == nil, !s.rungs[r].unusable,
                      refusal(parsed) == nil, parsed.isEnded == s.anchor.playlist.isEnded {
                s.rungs[r].playlist = parsed
                s.rungs[r].fetchedAt = now
                if isLive { s.rungs[r].byDate = Self.needsDates(parsed, anchor: s.anchor.playlist) }
            }
        }
    }

    /// Why a rung's playlist cannot be switched to (byte ranges allowed when ``servesRanges``).
    func refusal(_ playlist: HLSMediaPlaylist) -> String? {
        servesRanges ? playlist.rangedSwitchRefusal : playlist.switchRefusal
    }

    /// Which URL to fetch for `url` when it is a segment of the anchor playlist; nil otherwise
    /// (the caller opens `url` as it is). `wait` waits a number of seconds, false when the
    /// source is interrupted (live: waiting for the playing variant's playlist to list the
    /// segment; nil: never wait).
    package func plan(for url: String, wait: ((Double) -> Bool)? = nil) -> Plan? {
        guard let (segment, position) = state.withLock({ $0.anchor.place(of: url) }) else { return nil }
        let buffer = bufferLevel.current?() ?? 0
        let now = clock.seconds
        // Live candidates whose playlist does not list this segment yet: not switched to now.
        var skipped = Set<Int>()
        let estimator = monitor.throughput
        // Decide under the lock; load a playlist (I/O) outside it.
        for _ in 0..<4 {
            let (wanted, decision, current) = state.withLock { s -> (Int, AdaptiveRule.Decision?, Int) in
                guard s.armed else { return (s.current, nil, s.current) }
                let usable = s.usable(skipping: skipped)
                let rates = usable.map { Double(s.rungs[$0].variant.bandwidth) }
                guard let here = usable.firstIndex(of: s.current),
                      let d = AdaptiveRule.decide(current: here, rates: rates, estimate: estimator.estimate ?? policy.defaultEstimate,
                                                  recent: estimator.lastRate, fast: estimator.fastEstimate, buffer: buffer,
                                                  segmentSeconds: segment.duration, sinceSwitch: now - s.history.last,
                                                  segmentsSinceSwitch: s.history.measuredSinceLast,
                                                  policy: isLive ? policy.live(segment: s.anchor.playlist.targetDuration ?? segment.duration) : policy) else {
                    return (s.current, nil, s.current)
                }
                return (usable[d.rung], d, s.current)
            }
            let rung = wanted
            let target: HLSMediaPlaylist.Segment
            switch lookup(rung, segment, patient: rung == current, wait: wait) {
            case .found(let found): target = found
            case .notYet:
                skipped.insert(rung)
                continue
            case .never:
                continue
            }
            if let decision, rung != current {
                record(to: rung, segment: segment, position: position, reason: decision.reason, buffer: buffer, now: now)
            }
            return fetching(target, rung: rung, anchorURL: url)
        }
        // Nothing usable came of it: the anchor's own segment.
        state.withLock { $0.current = anchorRung }
        return fetching(segment, rung: anchorRung, anchorURL: url)
    }

    /// The segment of `rung` standing for the anchor's `segment`: the anchor's own, a live
    /// variant's by sequence number or date (``liveSegment(_:matching:patient:wait:)``), a VOD
    /// variant's by start time.
    private func lookup(_ rung: Int, _ segment: HLSMediaPlaylist.Segment, patient: Bool, wait: ((Double) -> Bool)?) -> LiveLookup {
        if rung == anchorRung { return .found(segment) }
        if isLive { return liveSegment(rung, matching: segment, patient: patient, wait: wait) }
        guard let playlist = playlist(of: rung) else { return .never }
        let tolerance = min(0.5, segment.duration * 0.25)
        guard let k = playlist.index(startingAt: segment.start, tolerance: tolerance) else {
            markUnusable(rung, why: "its segments do not line up with the playing variant's")
            return .never
        }
        return .found(playlist.segments[k])
    }

    /// Notes a switch to `rung` at the anchor's `segment` (logged, counted, kept for the status).
    private func record(to rung: Int, segment: HLSMediaPlaylist.Segment, position: Double, reason: String, buffer: Double, now: Double) {
        let estimate = monitor.throughput.estimate ?? policy.defaultEstimate
        state.withLock { s in
            let from = s.rungs[s.current], to = s.rungs[rung]
            let change = BitrateSwitch(position: position, fromBandwidth: from.variant.bandwidth, toBandwidth: to.variant.bandwidth,
                                       fromVariant: from.index + 1, toVariant: to.index + 1, reason: reason,
                                       estimate: estimate, buffer: buffer)
            s.switched(to: rung, change, at: now)
            AppLog.write("abr", String(cFormat: "segment at %.1f s", position) + (isLive ? " (#\(segment.sequence))" : "")
                         + ": variant \(change.fromVariant) (\(change.fromBandwidth) b/s) -> \(change.toVariant) (\(change.toBandwidth) b/s): \(change.reason)")
        }
    }

    /// hls.js's abandon rule, asked while `plan`'s segment downloads (`loaded` bytes after
    /// `elapsed` seconds): once ``AdaptivePolicy/Abandon/after`` of its media duration has
    /// passed, if the rest at the rate seen would take longer than the buffer holds, the same
    /// place from the highest lower variant whose whole segment loads within the buffer (at
    /// ``AdaptivePolicy/Abandon/margin`` of that rate; else the lowest), when that is sooner than
    /// finishing. Returns that plan (the switch is counted, the partial download measured), or
    /// nil: carry on. A live variant whose playlist does not list the place yet is not waited for.
    package func abandon(_ plan: Plan, loaded: Int, elapsed: Double) -> Plan? {
        guard plan.mediaSeconds > 0, elapsed.isFinite, elapsed > plan.mediaSeconds * policy.abandon.after, loaded > 0 else { return nil }
        let buffer = bufferLevel.current?() ?? 0
        let rate = Double(loaded) * 8 / elapsed
        guard let (segment, position, lower, expected) = state.withLock({ s -> (HLSMediaPlaylist.Segment, Double, [Int], Double)? in
            guard s.armed, s.rungs.indices.contains(plan.rung), let (segment, position) = s.anchor.place(of: plan.anchorURL) else { return nil }
            let v = s.rungs[plan.rung].variant
            let lower = s.rungs.indices.filter { $0 < plan.rung && !s.rungs[$0].unusable }
            return (segment, position, lower, Double(v.averageBandwidth ?? v.bandwidth) * plan.mediaSeconds / 8)
        }) else { return nil }
        let remaining = max(0, expected - Double(loaded)) * 8 / rate
        guard remaining > buffer, !lower.isEmpty else { return nil }
        let bandwidth = { (r: Int) in Double(self.state.withLock { $0.rungs[r].variant.bandwidth }) }
        let fetch = { (r: Int) in bandwidth(r) * plan.mediaSeconds / (self.policy.abandon.margin * rate) }
        let pick = lower.last { fetch($0) < buffer } ?? lower[0]
        guard fetch(pick) < remaining, case .found(let target) = lookup(pick, segment, patient: false, wait: nil) else { return nil }
        let now = clock.seconds
        if monitor.measured(bytes: loaded, seconds: elapsed, mediaSeconds: plan.mediaSeconds * min(1, Double(loaded) / max(1, expected))) {
            state.withLock { $0.history.measured() }
        }
        record(to: pick, segment: segment, position: position,
               reason: String(cFormat: "abandoned a segment: throughput %.2f Mb/s, %.1f s left to load, buffer %.1f s", rate / 1e6, remaining, buffer),
               buffer: buffer, now: now)
        return fetching(target, rung: pick, anchorURL: plan.anchorURL)
    }

    /// A planned segment was downloaded whole: `bytes` in `seconds`.
    package func downloaded(_ plan: Plan, bytes: Int, seconds: Double) {
        if monitor.measured(bytes: bytes, seconds: seconds, mediaSeconds: plan.mediaSeconds) {
            state.withLock { $0.history.measured() }
        }
    }

    /// A planned segment of another variant could not be fetched: that variant leaves the ladder.
    func failed(_ plan: Plan) {
        guard plan.rung != anchorRung else { return }
        markUnusable(plan.rung, why: "a segment could not be fetched")
    }
}
