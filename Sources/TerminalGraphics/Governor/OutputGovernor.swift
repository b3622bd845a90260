import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Steps a video output's quality down when frames cannot reach the terminal on time, and back
/// up when there is headroom, with hysteresis. Pure: fed with what the render thread measured
/// per frame, it returns the settings to use. Unit-tested with synthetic sample streams.
///
/// The rungs, best first, are the driver's (``VideoDriver/qualityRungs``): the governor knows no
/// kind of output, only the settings each rung asks for.
///
/// - Down: over the last second (or the last 12 frames when fewer were painted in it, at
///   least 4, after a settling time since the last change; or after 6 frames when their median
///   took over 1.1 frame intervals) the median load — (encode + write) ÷ frame interval — is above 0.9, or more than
///   10 % of frames were superseded in the mailbox, or the 90th-percentile latency is above two
///   frame intervals. Asked for twice what it can take or more (load ÷ 0.9, frames offered ÷
///   painted, latency ÷ two intervals), it jumps to the rung a cost model says will fit.
/// - Source-bound: most frames over an interval late while the terminal keeps up (load at most
///   0.9, nothing superseded, no stall: what cannot keep up is the source) goes straight to the
///   first rung that paints fewer frames; none painting as many as the one it left is tried
///   again for ``longestUpHold`` seconds.
/// - Floor: no rung asks for a picture smaller than ``minimumScale`` (half the cell-pixel
///   resolution of the placement; a driver's rung below it is raised to it, and
///   ``PictureGeometry/pixelPlacement(area:displayAspect:geometry:reservedRows:scale:heightMultiple:cellsFollowPicture:)``
///   never makes one either). The drivers' ladders drop frames (every 2nd, every 3rd) before
///   they reach the floor, and give the pixel driver up for half-block after it.
/// - Up: a load under 0.5 with nothing superseded, no write stall and the median frame on
///   time (within an interval) for `upHold` seconds (3 s at first). Falling back within 5 s of
///   a step up doubles `upHold` (up to 48 s), so a rung that cannot hold is not retried in a loop.
public struct OutputGovernor: Sendable {
    /// One painted frame, as the render thread measured it.
    public struct Sample: Sendable, Equatable {
        /// Seconds between frames at the current speed.
        public var frameInterval: Double
        public var encodeSeconds: Double
        /// Time until `write` accepted the frame's last byte.
        public var writeSeconds: Double
        /// Seconds the frame reached the screen after it was due (negative: early).
        public var latency: Double
        /// Frames replaced in the mailbox since the previous sample.
        public var superseded: Int
        /// The terminal did not take the bytes at once.
        public var stalled: Bool

        public init(frameInterval: Double, encodeSeconds: Double, writeSeconds: Double, latency: Double = 0,
                    superseded: Int = 0, stalled: Bool = false) {
            self.frameInterval = frameInterval
            self.encodeSeconds = encodeSeconds
            self.writeSeconds = writeSeconds
            self.latency = latency
            self.superseded = superseded
            self.stalled = stalled
        }
    }

    /// What the output should do.
    public struct Settings: Sendable, Equatable {
        /// Palette size (sixel), nil for drivers without one.
        public var colors: Int?
        /// Linear picture scale (≤ 1).
        public var scale: Double
        /// Paint every `frameDivisor`-th frame.
        public var frameDivisor: Int
        /// Give up the pixel driver for half-block.
        public var fallback: Bool
        /// Cell outputs: leave cells alone whose change is smaller than this (``CellRenderer/tolerance``);
        /// nil for the driver's own.
        public var tolerance: Double?

        public init(colors: Int? = nil, scale: Double = 1, frameDivisor: Int = 1, fallback: Bool = false,
                    tolerance: Double? = nil) {
            self.colors = colors
            self.scale = scale
            self.frameDivisor = frameDivisor
            self.fallback = fallback
            self.tolerance = tolerance
        }
    }

    public let enabled: Bool
    public private(set) var rungs: [Settings]
    public private(set) var level = 0
    public var settings: Settings { rungs[level] }
    /// The median time a frame took (encode + write, seconds) over the frames the last step down
    /// was decided on: the output measured live (`--vo=auto` chooses again with it when the
    /// governor gives the driver up).
    public private(set) var frameSecondsAtStepDown: Double?

    private var window: [(time: Double, sample: Sample)] = []
    private var lastChange = -Double.infinity
    private var lastStepUp = -Double.infinity
    private var headroomSince: Double?
    private(set) var upHold = 3.0
    /// The source could not keep up with every `divisor`-th frame (a source-bound step down):
    /// a rung painting more frames than that is tried again only after the longest hold (the
    /// source's cost does not change by the second, and each try costs late frames).
    private var sourceLimit: (divisor: Int, since: Double)?
    public static let longestUpHold = 48.0
    /// What ``add(_:)`` reads the time from (a ``ManualTimeSource`` in tests).
    public let clock: TimeSource

    public static let settleSeconds = 0.5
    public static let windowSeconds = 1.0
    public static let minimumSamples = 12
    /// A window spanning a whole second is judged from this many frames.
    public static let fewestSamples = 4
    public static let longestWindowSeconds = 4.0
    /// Seconds of overload on the rung before the last before giving the driver up.
    public static let fallbackHoldSeconds = 3.0
    /// A median load over this in `quickSamples` frames is judged at once, not after a second.
    public static let sustainedOverload = 1.1
    public static let quickSamples = 6

    /// - Parameters:
    ///   - rungs: the driver's quality ladder, best first (``VideoDriver/qualityRungs``); at least one.
    ///   - enabled: false pins the top rung (`--vo-governor=no`).
    ///   - clock: when each frame's measurements are taken (``add(_:)``).
    public init(rungs: [Settings], enabled: Bool = true, clock: TimeSource) {
        precondition(!rungs.isEmpty, "a governor needs at least one rung")
        self.enabled = enabled
        self.clock = clock
        self.rungs = rungs.map { rung in
            var r = rung
            r.scale = Self.floored(r.scale)
            r.frameDivisor = min(Self.maximumFrameDivisor, max(1, r.frameDivisor))
            return r
        }
    }

    /// The smallest picture scale any rung asks for: half the cell-pixel resolution of the
    /// placement on each side (a 1280×720 placement is never drawn from fewer than 640×360
    /// pixels). Below it a stretched picture stops being readable (seen in kitty under software
    /// GL: 64×36 pixels over the whole window); frames are dropped first, then the driver is
    /// given up for half-block.
    public static let minimumScale = 0.5
    /// At most every 3rd frame is painted (8 fps from 24).
    public static let maximumFrameDivisor = 3

    /// `scale` within the floor and 1 (not finite: 1).
    public static func floored(_ scale: Double) -> Double {
        scale.isFinite ? min(1, max(minimumScale, scale)) : 1
    }

    /// Adds one frame's measurements taken now (``clock``); returns the new settings when they change.
    public mutating func add(_ sample: Sample) -> Settings? { add(sample, now: clock.seconds) }

    /// Adds one frame's measurements taken at `now` (seconds of ``clock``); returns the new
    /// settings when they change.
    public mutating func add(_ sample: Sample, now: Double) -> Settings? {
        guard enabled, sample.frameInterval > 0, sample.frameInterval.isFinite else { return nil }
        window.append((now, sample))
        // The last second, or the last `minimumSamples` frames when fewer were painted in it
        // (a terminal that takes 6 frames a second must still be judged), at most 4 s back.
        while let first = window.first, now - first.time > Self.windowSeconds,
              window.count > Self.minimumSamples || now - first.time > Self.longestWindowSeconds {
            window.removeFirst()
        }
        guard now - lastChange >= Self.settleSeconds, let first = window.first,
              window.count >= Self.fewestSamples else { return nil }
        let span = now - first.time
        let loads = window.map { ($0.sample.encodeSeconds + $0.sample.writeSeconds) / $0.sample.frameInterval }.sorted()
        let load = loads[loads.count / 2]
        let superseded = window.reduce(0) { $0 + $1.sample.superseded }
        let supersededShare = Double(superseded) / Double(window.count + superseded)
        let latencies = window.map { $0.sample.latency / $0.sample.frameInterval }.sorted()
        let latencyP90 = latencies[min(latencies.count - 1, latencies.count * 9 / 10)]
        let stalled = window.contains { $0.sample.stalled }
        let offered = Double(window.count + superseded) / Double(window.count)
        let severity = max(load / 0.9, offered, latencyP90 / 2)
        // Judged on a second of frames (or 12 of them); half a second is enough when the
        // terminal is asked for twice what it takes (every frame late costs a dropped one),
        // and `quickSamples` frames when most of them took longer than their interval (the
        // first frames on a slow terminal: each one waited for costs a superseded one).
        let mostFramesOverran = window.count >= Self.quickSamples && load > Self.sustainedOverload
        guard window.count >= Self.minimumSamples || span >= Self.windowSeconds
                || (severity >= 2 && span >= Self.windowSeconds / 2) || mostFramesOverran else { return nil }

        // Most frames late at the screen while the terminal has time to spare: what cannot keep
        // up is before it (4K60 decoding on two cores), and painting fewer frames is the rung
        // that lightens that (the engine neither converts nor decodes what is left out).
        let latencyMedian = latencies[latencies.count / 2]
        let sourceBound = latencyMedian > 1 && load <= 0.9 && supersededShare <= 0.1 && !stalled
        if load > 0.9 || supersededShare > 0.1 || latencyP90 > 2 || sourceBound {
            headroomSince = nil
            guard level + 1 < rungs.count else { return nil }
            if now - lastStepUp < 5 { upHold = min(Self.longestUpHold, upHold * 2) }
            // How many times too much the terminal is asked for: over 2 (a slow terminal meeting
            // a full-size picture), jump to the rung estimated to fit, so the picture is in time
            // after a couple of seconds rather than five or six; never straight to the last rung.
            var target = level + 1
            if sourceBound, let fewer = rungs.indices.first(where: {
                $0 > level && rungs[$0].frameDivisor > settings.frameDivisor && !rungs[$0].fallback
            }) {
                target = fewer
                sourceLimit = (settings.frameDivisor, now)
            } else {
                // Giving up the driver cannot be undone (the new driver has its own governor): only
                // after the rung before it has been overloaded for a while, not on a start-up spike.
                if rungs[target].fallback, now - lastChange < Self.fallbackHoldSeconds { return nil }
                if severity >= 2 {
                    let budget = Self.cost(rungs[level]) / severity
                    while target + 2 < rungs.count, Self.cost(rungs[target]) > budget { target += 1 }
                }
            }
            let times = window.map { $0.sample.encodeSeconds + $0.sample.writeSeconds }.sorted()
            frameSecondsAtStepDown = times[times.count / 2]
            return change(to: target, now: now)
        }
        if load < 0.5, superseded == 0, !stalled, latencyMedian <= 1 {
            if headroomSince == nil { headroomSince = now }
            let limited = sourceLimit.map { level > 0 && rungs[level - 1].frameDivisor <= $0.divisor && now - $0.since < Self.longestUpHold } ?? false
            if level > 0, !limited, let since = headroomSince, now - since >= upHold {
                lastStepUp = now
                return change(to: level - 1, now: now)
            }
        } else {
            headroomSince = nil
        }
        return nil
    }

    /// What a rung costs the terminal relative to the top one (a rough model: pixels, fewer
    /// palette colours write fewer colour runs, every 2nd frame halves it). Only used to jump
    /// when far behind; the measurements after the jump correct it either way.
    static func cost(_ s: Settings) -> Double {
        s.scale * s.scale * pow(Double(s.colors ?? 256) / 256, 0.35) / Double(s.frameDivisor)
    }

    private mutating func change(to newLevel: Int, now: Double) -> Settings {
        level = newLevel
        lastChange = now
        headroomSince = nil
        window.removeAll()
        return settings
    }

    /// The state for the stats box and telemetry pane, e.g.
    /// `sixel 128 colours ×0.75 12 fps (governed)`; `(pinned)` when the governor is off.
    public func describe(driverName: String, fps: Double) -> String {
        var parts = [driverName]
        let s = settings
        if let colors = s.colors { parts.append("\(colors) colours") }
        if s.scale < 1 { parts.append("×" + Self.decimal(s.scale)) }
        if let t = s.tolerance, t > 0 { parts.append("tolerance \(Self.decimal(t))") }
        if fps > 0 { parts.append("\(Int((fps / Double(s.frameDivisor)).rounded())) fps") }
        parts.append(enabled ? (level > 0 ? "(governed)" : "(full quality)") : "(pinned)")
        return parts.joined(separator: " ")
    }

    private static func decimal(_ v: Double) -> String {
        var text = String(Int((v * 100).rounded()))
        while text.count < 3 { text = "0" + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -2))
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
