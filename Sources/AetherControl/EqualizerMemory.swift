import AetherBase
import AetherMedia
import FoundationEssentials

/// The equalizer chosen for each audio device, kept in the state directory
/// (`$XDG_STATE_HOME/aether-tui/equalizer`): headphones and speakers want different curves. A
/// choice made while playing (the panel, the `equalizer` property) is kept for the device it was
/// heard on; the next start on that device plays it, unless `--equalizer` is on the command line.
///
/// The file is a line per device, `device<TAB>choice` (the choice as `--equalizer` takes it),
/// written whole and atomically. Read as hostile input: within ``maxBytes`` and ``maxDevices``;
/// a line that does not read is left out (the others kept).
public struct EqualizerMemory: Sendable {
    public let path: String
    public static let maxBytes = 64 * 1024
    public static let maxDevices = 64

    public init(path: String) { self.path = path }

    public static func defaultPath(environment: [String: String]) -> String {
        StateDirectory.path("equalizer", environment: environment)
    }

    /// The choices kept, by device (in the file's order; a device's last line wins).
    public func entries() -> [(device: String, choice: EqualizerChoice)] {
        guard case .success(let bytes) = FileBytes.read(path: path, limit: Self.maxBytes, truncating: true, followLinks: false, regularOnly: true) else {
            return []
        }
        var kept: [(device: String, choice: EqualizerChoice)] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1)
            guard fields.count == 2, let choice = try? EqualizerChoice(parsing: String(fields[1])) else {
                AppLog.write("equalizer", "\(TextSanitizer.clean(path)): a line left out")
                continue
            }
            let device = String(fields[0])
            kept.removeAll { $0.device == device }
            kept.append((device, choice))
        }
        return Array(kept.suffix(Self.maxDevices))
    }

    /// The choice kept for `device`, if any.
    public func choice(for device: String) -> EqualizerChoice? {
        entries().last { $0.device == device }?.choice
    }

    /// Keeps `choice` for `device` (the others stay; the oldest go past ``maxDevices``); nil
    /// when it is kept, else why not in a line.
    public func remember(_ choice: EqualizerChoice, for device: String) -> String? {
        do {
            try write(choice, for: device)
            return nil
        } catch {
            return "cannot keep the equalizer for \(TextSanitizer.clean(device)) in \(TextSanitizer.clean(path)): \(error)"
        }
    }

    private func write(_ choice: EqualizerChoice, for device: String) throws {
        let clean = device.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        var kept = entries().filter { $0.device != clean }
        kept.append((clean, choice))
        let text = kept.suffix(Self.maxDevices).map { "\($0.device)\t\($0.choice.text)\n" }.joined()
        try FileManager.default.createDirectory(atPath: Paths.deletingLastComponent(path), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
