import AetherBase
import AetherMedia
import CLibass
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One libass library handle (`ASS_Library`), freed exactly once by `deinit`.
///
/// libass prints its messages on stderr, which is the terminal, unless a callback is set: here
/// every message goes to ``ASSLog`` instead (the log file, each distinct line once), before
/// anything else is done with the handle.
/// The corresponding C functions are `ass_library_init`, `ass_set_message_cb` and `ass_library_done`.
public final class ASSLibrary {
    let pointer: OpaquePointer

    public init?() {
        guard let library = ass_library_init() else { return nil }
        aether_ass_set_message_sink(library, assLogSink)
        pointer = library
    }

    deinit { ass_library_done(pointer) }

    /// Hands libass a font file's bytes (a Matroska attachment); libass copies them. A font it
    /// cannot open is reported (once) in the log when a renderer loads the fonts.
    /// The corresponding C function is `ass_add_font`.
    public func addFont(name: String, data: [UInt8]) {
        guard !data.isEmpty, data.count <= Int(Int32.max) else { return }
        var bytes = data
        bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { p in
                ass_add_font(pointer, name, p, Int32(buffer.count))
            }
        }
    }
}

/// One libass renderer (`ASS_Renderer`), freed exactly once by `deinit`; it keeps its library
/// alive (libass requires the library to outlive its renderers).
/// The corresponding C functions are `ass_renderer_init`, `ass_set_fonts` and `ass_renderer_done`.
public final class ASSRenderer {
    let pointer: OpaquePointer
    public let library: ASSLibrary

    public init?(library: ASSLibrary) {
        guard let renderer = ass_renderer_init(library.pointer) else { return nil }
        self.library = library
        pointer = renderer
    }

    deinit { ass_renderer_done(pointer) }

    /// Loads the fonts added to the library and, with `fontconfig`, the system's; `family` is
    /// the fallback family.
    public func setFonts(family: String? = "sans-serif", fontconfig: Bool = true) {
        ass_set_fonts(pointer, nil, family,
                      Int32(fontconfig ? ASS_FONTPROVIDER_AUTODETECT.rawValue : ASS_FONTPROVIDER_NONE.rawValue), nil, 0)
    }
}

/// libass's messages, into ``AppLog``'s file as `[libass …]` lines: warnings and worse only
/// (libass levels 0–2; its info and debug chatter is dropped), each distinct line logged once
/// (a malformed script repeats the same complaint for every event).
public enum ASSLog {
    /// Most libass message level kept (`MSGL_WARN`).
    static let maxLevel: Int32 = 2
    /// Distinct lines remembered; past this every line is logged again (bounded memory).
    static let maxRemembered = 256
    private static let seen = Guarded<Set<String>>([])

    /// The last lines written (a test counts its own among what other threads log meanwhile).
    private static let recent = Guarded<[String]>([])
    static let recentKept = 64

    /// How many of the last ``recentKept`` lines logged contain `fragment` (tests: libass logs
    /// from every thread of the process, so a count of all lines is another test's too).
    package static func recentLines(containing fragment: String) -> Int {
        recent.withLock { $0.filter { $0.contains(fragment) }.count }
    }

    package static func receive(level: Int32, line: String) {
        guard level <= maxLevel else { return }
        let text = TextSanitizer.clean(line.trimmingWhitespaceAndNewlines())
        let fresh = seen.withLock { set -> Bool in
            if set.contains(text) { return false }
            if set.count >= maxRemembered { set.removeAll() }
            set.insert(text)
            return true
        }
        guard fresh else { return }
        recent.withLock { lines in
            if lines.count >= recentKept { lines.removeFirst() }
            lines.append(text)
        }
        AppLog.write("libass", text)
    }
}

private let assLogSink: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, line in
    guard let line else { return }
    ASSLog.receive(level: level, line: String(cString: line))
}
