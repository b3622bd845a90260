import AetherLoopback
import AetherEngine
import Foundation

/// Seek latency in process: a `Player` (audio `.null`) loaded and paused; the time from
/// `seek(to:mode:)` to the frame handler receiving the first frame of the new position, for
/// `.keyframe` and `.exact` at several targets. Each run loads a fresh player; the two modes run
/// as separate passes over the targets, in alternating order from run to run.
struct SeekLatency {
    let repeats: Int
    /// Frames are scaled to this size (RGB24) before delivery, as a host with a picture asks; nil = no pixels.
    let renderSize: PixelSize?
    /// Pause between seeks, so that each starts from a settled, idle player.
    let settleSeconds = 0.15
    /// Target positions as fractions of the duration, spread so consecutive seeks jump both ways.
    static let fractions = [0.42, 0.13, 0.87, 0.31, 0.66, 0.05, 0.74, 0.52]

    struct Sample: Codable {
        var mode: String
        var target: Double
        var landedPTS: Double
        var milliseconds: Double
    }

    struct ModeResult: Codable {
        var mode: String
        var samples: Int
        var medianMs: Double
        var p95Ms: Double
        var minMs: Double
        var maxMs: Double
        /// Median of target − landed pts (0 to one frame interval for `.exact`; back to the keyframe for `.keyframe`).
        var medianLandedBehindMs: Double
        /// Samples that landed after the target, or (exact) more than one frame interval before it.
        var misplaced: Int
    }

    struct Result: Codable {
        var file: String
        var renderSize: String
        var targets: [Double]
        var modes: [ModeResult]
    }

    enum Failure: Error, CustomStringConvertible {
        case load(String), timeout(String)
        var description: String {
            switch self {
            case .load(let s): "seek bench: cannot load \(s)"
            case .timeout(let s): "seek bench: \(s)"
            }
        }
    }

    /// The last frame the handler received: count, monotonic time of receipt, pts.
    final class FrameProbe: Sendable {
        let last = Guarded<(count: Int, at: Double, pts: Double)>((0, 0, 0))
        func record(_ frame: VideoFrame) {
            let now = MonotonicTime.now()
            last.withLock { $0 = ($0.count + 1, now, frame.pts) }
        }
    }

    func measure(file: String) throws -> Result {
        var samples: [Sample] = []
        var targets: [Double] = []
        var interval = 1.0 / 24
        for run in 0..<repeats {
            let player = Player()
            var options = PlayerOptions(time: .monotonic)
            options.audio.output = .null
            do { try player.load(url: file, options: options) } catch { throw Failure.load("\(file): \(error)") }
            defer { player.stop() }
            let probe = FrameProbe()
            player.setRenderSize(renderSize)
            player.setFrameHandler { probe.record($0) }
            try waitSettled(player, what: "load")
            let duration = player.duration ?? 10
            if let rate = player.mediaInfo?.primaryVideo?.frameRate, rate > 0 { interval = 1 / rate }
            // Off frame boundaries, so that `.exact` has to pick the frame before the target.
            targets = Self.fractions.map { (($0 * duration * 1000).rounded() + 11) / 1000 }
            let modes: [SeekMode] = run % 2 == 0 ? [.keyframe, .exact] : [.exact, .keyframe]
            for mode in modes {
                for target in targets {
                    Thread.sleep(forTimeInterval: settleSeconds)
                    let before = probe.last.withLock { $0.count }
                    let t0 = MonotonicTime.now()
                    player.seek(to: target, mode: mode)
                    var frame = probe.last.withLock { $0 }
                    while frame.count == before {
                        if MonotonicTime.now() - t0 > 10 {
                            throw Failure.timeout("no frame 10 s after seek(to: \(target), mode: .\(mode))")
                        }
                        Thread.sleep(forTimeInterval: 0.0002)
                        frame = probe.last.withLock { $0 }
                    }
                    samples.append(Sample(mode: mode.rawValue, target: target, landedPTS: frame.pts,
                                          milliseconds: (frame.at - t0) * 1000))
                    try waitSettled(player, what: "seek to \(target)")
                }
            }
        }
        let modes = [SeekMode.keyframe, .exact].map { mode -> ModeResult in
            let mine = samples.filter { $0.mode == mode.rawValue }
            let ms = mine.map(\.milliseconds)
            let behind = mine.map { ($0.target - $0.landedPTS) * 1000 }
            let misplaced = mine.filter { s in
                let d = s.target - s.landedPTS
                return d < -0.001 || (mode == .exact && d > interval + 0.001)
            }.count
            return ModeResult(mode: mode.rawValue, samples: mine.count, medianMs: Stats.median(ms),
                              p95Ms: Stats.percentile(ms, 95), minMs: ms.min() ?? 0, maxMs: ms.max() ?? 0,
                              medianLandedBehindMs: Stats.median(behind), misplaced: misplaced)
        }
        return Result(file: file, renderSize: renderSize.map { "\($0.width)x\($0.height)" } ?? "none",
                      targets: targets, modes: modes)
    }

    /// Waits until the player has shown the new position and left `.loading`/`.seeking`.
    private func waitSettled(_ player: Player, what: String) throws {
        let t0 = MonotonicTime.now()
        while [.loading, .seeking].contains(player.state) {
            if MonotonicTime.now() - t0 > 10 { throw Failure.timeout("\(what) did not settle in 10 s") }
            Thread.sleep(forTimeInterval: 0.001)
        }
        if player.state == .error { throw Failure.timeout("\(what): player in error state") }
    }
}
