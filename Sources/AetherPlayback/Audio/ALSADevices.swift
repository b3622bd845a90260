import AetherBase
import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// The ALSA devices sound can be played through (`--audio-device=help`, as mpv lists its own):
/// alsa-lib's PCM hints that take output, each its name and its description's first line.
public enum ALSADevices {
    public struct Device: Sendable, Equatable {
        public var name: String
        public var description: String
    }

    /// At most this many are listed (a machine with hundreds of hints says how many were left).
    public static let limit = 256

    /// The output devices alsa-lib knows of, in its order; `default` first when it has one.
    /// Names and descriptions come from the system's configuration: cleaned.
    public static func list() -> (devices: [Device], leftOut: Int) {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return ([], 0) }
        defer { snd_device_name_free_hint(hints) }
        func take(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let text = snd_device_name_get_hint(hint, id) else { return nil }
            defer { free(text) }
            return String(cString: text)
        }
        var devices: [Device] = []
        var leftOut = 0
        var k = 0
        while let hint = hints[k] {
            k += 1
            // IOID: nil for both directions, "Output" or "Input".
            guard take(hint, "IOID") ?? "Output" == "Output", let name = take(hint, "NAME") else { continue }
            guard devices.count < limit else { leftOut += 1; continue }
            let description = take(hint, "DESC").map { $0.split(separator: "\n").map(String.init).joined(separator: ", ") } ?? ""
            devices.append(Device(name: TextSanitizer.clean(name), description: TextSanitizer.clean(description)))
        }
        if let i = devices.firstIndex(where: { $0.name == "default" }), i > 0 { devices.insert(devices.remove(at: i), at: 0) }
        return (devices, leftOut)
    }
}
