/// mpv's time syntax (`--start`, `--end`, `--length`): `[+]ss[.ms]`, `[+][[hh:]mm:]ss[.ms]`;
/// `-` before it counts from the end; `N%` of the duration; `#c` chapter c's start (the first is 1).
enum TimeArgument: Equatable {
    case seconds(Double)
    case percent(Double)
    /// This long before the end.
    case fromEnd(Double)
    /// The start of chapter N (1-based).
    case chapter(Int)

    init?(_ text: String) {
        var t = Substring(text.trimmingWhitespace())
        if t.hasSuffix("%") {
            guard let p = Double(t.dropLast()), p >= 0, p <= 100 else { return nil }
            self = .percent(p)
            return
        }
        if t.hasPrefix("#") {
            guard let n = Int(t.dropFirst()), (1...100_000).contains(n) else { return nil }
            self = .chapter(n)
            return
        }
        let fromEnd = t.hasPrefix("-")
        if fromEnd || t.hasPrefix("+") { t = t.dropFirst() }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (n, part) in parts.enumerated() {
            guard let v = Double(part), v >= 0, v.isFinite else { return nil }
            if n < parts.count - 1, v != v.rounded() { return nil }
            total = total * 60 + v
        }
        self = fromEnd ? .fromEnd(total) : .seconds(total)
    }

    /// Whether the time depends on the source (its duration or chapters): the source is probed first.
    var needsSource: Bool {
        if case .seconds = self { return false }
        return true
    }

    /// The time in seconds from the start, for a source of `duration` with chapters starting at
    /// `chapters`: a chapter the source lacks, and a time before the end of a source of unknown
    /// length, is its end (or 0 with no duration).
    func resolve(duration: Double?, chapters: [Double] = []) -> Double {
        switch self {
        case .seconds(let s): return s
        case .percent(let p): return (duration ?? 0) * p / 100
        case .fromEnd(let s): return max(0, (duration ?? 0) - s)
        case .chapter(let n): return chapters.indices.contains(n - 1) ? chapters[n - 1] : (duration ?? 0)
        }
    }
}

import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
