import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An item's cover as a file, for MPRIS's `mpris:artUrl` (a desktop's media widget shows it):
/// a PNG in the cover directory (`$XDG_CACHE_HOME/aether-tui/covers`) named by a digest of its
/// pixels, so the same cover is one file whatever plays it; the ``keep`` newest stay, the older
/// are removed when another is written.
enum CoverFile {
    static let keep = 32

    /// The `file://` URL of `image` written in `directory` (nil when it cannot be written).
    static func url(for image: StillImage, in directory: String) -> String? {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in [UInt8](String("\(image.width)x\(image.height)").utf8) + image.pixels {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let path = Paths.join(directory, String(hash, radix: 16) + ".png")
        if !FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try PNGWriter.write(image, to: path)
            } catch {
                AppLog.write("mpris", "cover not written to \(TextSanitizer.clean(directory)): \(error)")
                return nil
            }
            prune(directory)
        }
        return URL(fileURLWithPath: path).absoluteString
    }

    /// The ``keep`` newest PNGs of `directory` stay.
    static func prune(_ directory: String) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".png") }
        guard names.count > keep else { return }
        func modified(_ name: String) -> Double {
            var st = stat()
            return stat(Paths.join(directory, name), &st) == 0 ? Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9 : 0
        }
        for name in names.map({ ($0, modified($0)) }).sorted(by: { $0.1 > $1.1 }).dropFirst(keep).map(\.0) {
            _ = unlink(Paths.join(directory, name))
        }
    }
}
