import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `--stats-file`: telemetry as JSON lines at 1 Hz (`{"telemetry": …}`) and one final
/// `{"summary": …}` line, for whichever host plays (headless or the TUI).
public final class StatsFile {
    private let fd: Int32
    private let encoder = JSONEncoder()

    public init(path: String) throws(PlayerError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PlayerError("cannot write stats file '\(path)': \(String(cString: strerror(errno)))", cause: .system(errno: errno)) }
        self.fd = fd
        encoder.outputFormatting = [.sortedKeys]
    }

    deinit { close(fd) }

    /// Variant switches already written (of the current item).
    private var switchesWritten = 0

    /// The 1 Hz line: `{"telemetry": …}`, then one `{"switch": …}` line per variant switch since
    /// the last call (its position, the variants' numbers and peak rates, the reason, the
    /// estimate and the buffer when it was decided).
    public func record(_ telemetry: TelemetrySnapshot, player: Player) {
        write("telemetry", telemetry)
        writeSwitches(player: player)
    }

    /// The `{"switch": …}` lines not written yet: with each telemetry line, and before the
    /// summary (a switch in the last second before quitting is in the file too).
    public func writeSwitches(player: Player) {
        guard let adaptive = player.adaptive else { switchesWritten = 0; return }
        if adaptive.switchCount < switchesWritten { switchesWritten = 0 }
        let new = adaptive.switchCount - switchesWritten
        for change in adaptive.switches.suffix(min(new, adaptive.switches.count)) { write("switch", change) }
        switchesWritten = adaptive.switchCount
    }

    /// The item's summary line, after the switches it has not written yet.
    public func writeSummary(_ summary: PlaybackSummary, player: Player) {
        writeSwitches(player: player)
        write("summary", summary)
    }

    public func write<T: Encodable>(_ key: String, _ value: T) {
        guard let data = try? encoder.encode([key: value]) else { return }
        FileBytes.writeAll([UInt8](data) + [UInt8(ascii: "\n")], to: fd)
    }
}
