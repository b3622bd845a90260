/// mpv's time syntax: `ss[.ms]`, `mm:ss`, `hh:mm:ss[.ms]`, or `N%` of the duration.
enum TimeArgument: Equatable {
    case seconds(Double)
    case percent(Double)

    init?(_ text: String) {
        let t = text.trimmingWhitespace()
        if t.hasSuffix("%") {
            guard let p = Double(t.dropLast()), p >= 0, p <= 100 else { return nil }
            self = .percent(p)
            return
        }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (n, part) in parts.enumerated() {
            guard let v = Double(part), v >= 0, v.isFinite else { return nil }
            if n < parts.count - 1, v != v.rounded() { return nil }
            total = total * 60 + v
        }
        self = .seconds(total)
    }

    func resolve(duration: Double?) -> Double {
        switch self {
        case .seconds(let s): return s
        case .percent(let p): return (duration ?? 0) * p / 100
        }
    }
}

import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
