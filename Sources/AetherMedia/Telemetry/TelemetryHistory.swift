import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The last half minute of 1 Hz telemetry (a host's sparklines): bit rate, A/V gap, frame rate
/// and the bytes the host wrote to its terminal each second.
public struct TelemetryHistory: Sendable {
    public static let length = 30
    public private(set) var bitrate: [Double] = []
    public private(set) var gap: [Double] = []
    public private(set) var fps: [Double] = []
    public private(set) var terminalBytes: [Double] = []
    private var lastBytes = 0

    public init() {}

    public mutating func add(_ t: TelemetrySnapshot, terminalBytes bytes: Int) {
        func push(_ a: inout [Double], _ v: Double) {
            a.append(v)
            if a.count > TelemetryHistory.length { a.removeFirst(a.count - TelemetryHistory.length) }
        }
        push(&bitrate, t.bitrates.instant)
        push(&gap, abs(t.sync.gapLastMs))
        push(&fps, t.observedFPS)
        push(&terminalBytes, Double(max(0, bytes - lastBytes)))
        lastBytes = bytes
    }

    /// `▁▂▃▄▅▆▇█` scaled to the series' own maximum.
    public static func sparkline(_ values: [Double], width: Int) -> String {
        let bars = Array("▁▂▃▄▅▆▇█")
        let tail = values.suffix(width)
        let top = max(tail.max() ?? 0, 1e-9)
        return String(tail.map { bars[min(7, max(0, Int(($0 / top) * 7.99)))] })
    }
}
