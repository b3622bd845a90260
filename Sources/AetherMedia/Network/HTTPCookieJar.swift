import AetherBase
import AetherTransport

/// The cookies the answers of one reader's exchanges set (`Set-Cookie`), sent back to the same
/// host (as libavformat's http protocol keeps them over one resource's redirects and
/// reconnects). Within budgets: ``maxCookies`` cookies of at most ``maxCookieBytes`` bytes each;
/// one more is left out. Attributes other than `Max-Age=0` (a deletion) are not read.
package struct HTTPCookieJar {
    package static let maxCookies = 32
    package static let maxCookieBytes = 4096
    private var cookies: [(host: String, name: String, value: String)] = []
    /// Cookies left out (over a budget, or not a `name=value` of visible characters).
    package private(set) var leftOut = 0

    package init() {}

    /// Takes the `Set-Cookie` fields of an answer from `host`.
    package mutating func take(_ head: HTTPResponseHead, host: String) {
        for (name, value) in head.fields where name == "set-cookie" {
            let pair = value.prefix { $0 != ";" }
            guard pair.utf8.count <= Self.maxCookieBytes, let equals = pair.firstIndex(of: "="),
                  !pair.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { leftOut += 1; continue }
            let key = String(pair[..<equals]), cookie = String(pair[pair.index(after: equals)...])
            guard !key.isEmpty else { leftOut += 1; continue }
            cookies.removeAll { $0.host == host && $0.name == key }
            if value.lowercased().contains("max-age=0") { continue }
            guard cookies.count < Self.maxCookies else { leftOut += 1; continue }
            cookies.append((host, key, cookie))
        }
    }

    /// The `Cookie` field for a request to `host` (nil: none).
    package func header(for host: String) -> String? {
        let mine = cookies.filter { $0.host == host }
        return mine.isEmpty ? nil : mine.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
