#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension String {
    /// printf's formatting of numbers (`%.2f`, `%02d`, `%08llx`, `%g` …) in the C locale
    /// whatever the process's locale (the TUI sets it from the environment for ncurses: a
    /// German one would write `1,5`). No `%s` or `%@`: strings go in by interpolation.
    public init(cFormat format: String, _ arguments: CVarArg...) {
        self = CFormat.format(format, arguments)
    }
}

enum CFormat {
    /// The C locale, made once (`uselocale` switches only the calling thread).
    nonisolated(unsafe) static let cLocale = newlocale(1 << LC_NUMERIC, "C", nil)

    static func format(_ format: String, _ arguments: [CVarArg]) -> String {
        let previous = uselocale(cLocale)
        defer { uselocale(previous) }
        var buffer = [CChar](repeating: 0, count: 64)
        let needed = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        guard needed >= 0 else { return "" }
        if Int(needed) >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
            _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        return String(decoding: buffer.prefix(Int(needed)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
