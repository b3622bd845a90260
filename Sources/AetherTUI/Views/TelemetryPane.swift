import AetherMedia
import AetherScreen
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The telemetry pane (`i`): the last second's figures, each of the first four with a sparkline
/// of the last half minute under it, then the pipeline's stages, the clock and the device.
struct TelemetryPane {
    var telemetry: TelemetrySnapshot
    var history: TelemetryHistory

    func render(in pane: CellRect, into surface: inout some TextSurface) {
        let t = telemetry
        let h = history
        let spark = max(0, pane.width - 14)
        var lines: [(String, String)] = [
            (String(cFormat: "bitrate %5.2f Mb/s", t.bitrates.instant / 1e6), TelemetryHistory.sparkline(h.bitrate, width: spark)),
            (String(cFormat: "A/V gap %+5.1f ms", t.sync.gapLastMs), TelemetryHistory.sparkline(h.gap, width: spark)),
            (String(cFormat: "fps     %5.1f", t.observedFPS), TelemetryHistory.sparkline(h.fps, width: spark)),
            (String(cFormat: "tty     %5.0f kB/s", (h.terminalBytes.last ?? 0) / 1000), TelemetryHistory.sparkline(h.terminalBytes, width: spark)),
        ]
        lines.append((String(cFormat: "buffer  %5.1f s, %d frames", t.buffer.seconds, t.buffer.frames), ""))
        if let bytes = t.network.bytes {
            lines.append((String(cFormat: "net     %5.0f kB/s, %.1f MB, %d retries, %d rebuffers",
                                 (t.network.bytesPerSecond ?? 0) / 1000, Double(bytes) / 1e6, t.network.retries ?? 0, t.network.rebuffers), ""))
        }
        if let rate = t.variant.bitrate {
            var line = String(cFormat: "variant %d  %.2f Mb/s", t.variant.number ?? 0, Double(rate) / 1e6)
            if let estimate = t.variant.estimatedThroughput { line += String(cFormat: "  est %.2f", estimate / 1e6) }
            if let switches = t.variant.switches { line += "  \(switches) sw" }
            lines.append((line, ""))
        }
        lines.append(("frames  \(t.frames.presented) shown \(t.frames.dropped) dropped", ""))
        lines.append((String(cFormat: "decode  %5.2f ms/frame", t.stages.decodeMsPerFrame), ""))
        // The pipeline stage by stage (ms per packet for read, per frame for the rest).
        lines.append((String(cFormat: "read %.2f filter %.2f scale %.2f", t.stages.readMsPerPacket, t.stages.filterMsPerFrame, t.stages.scaleMsPerFrame), ""))
        lines.append((String(cFormat: "render %.2f write %.2f ms", t.stages.renderMsPerFrame, t.stages.writeMsPerFrame), ""))
        lines.append(("clock   \(t.sync.clockSource)", ""))
        lines.append(("audio   \(t.audio.device)", ""))
        var row = pane.row
        surface.put(" Telemetry", row: row, column: pane.column, role: .statsBorder, width: pane.width)
        row += 1
        for (label, sparkline) in lines where row < pane.endRow {
            surface.put(" " + label, row: row, column: pane.column, role: .telemetry, width: pane.width)
            row += 1
            if !sparkline.isEmpty, row < pane.endRow {
                surface.put("  " + sparkline, row: row, column: pane.column, role: .sparkline, width: pane.width)
                row += 1
            }
        }
    }
}
