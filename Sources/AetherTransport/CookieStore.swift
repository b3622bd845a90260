import AetherBase
import CCurl

/// The cookies the answers of a session's transfers set, kept and sent back by libcurl's cookie
/// engine, by RFC 6265's rules: a cookie goes back to the host that set it, or to the hosts its
/// `Domain` covers (never a public suffix, never a domain the setting host is not in), under its
/// `Path`; `Secure` ones over https only; `Max-Age` and `Expires` end them. One store may be
/// given to several sessions (a source's open and its switcher), whichever threads drive them
/// (the share's locks, ``aether_curl_cookie_share_new``).
///
/// Within budgets: libcurl's own (a cookie's name and value at most 4096 bytes, at most 50 taken
/// from one answer) and ours, at most ``maxCookies`` kept: past it, the ones libcurl lists last
/// (the newest of a domain) are left out, and the count is logged.
public final class CookieStore: @unchecked Sendable {  // libcurl's share is locked by its own callbacks
    /// Cookies kept, at most.
    package static let maxCookies = 32
    let share: UnsafeMutablePointer<aether_cookie_share>

    public init() {
        _ = TransportSession.ready
        share = aether_curl_cookie_share_new()!
    }

    deinit { aether_curl_cookie_share_free(share) }

    /// Makes `easy`'s request send the store's cookies and its answer's cookies land in it.
    func attach(_ easy: UnsafeMutableRawPointer) {
        _ = aether_curl_set_pointer(easy, CURLOPT_SHARE, UnsafeMutableRawPointer(share.pointee.share))
        _ = aether_curl_set_string(easy, CURLOPT_COOKIEFILE, "")
    }

    /// The cookies kept, as libcurl writes them (Netscape's lines), read through `easy`.
    func lines(through easy: UnsafeMutableRawPointer) -> [String] {
        var list: UnsafeMutablePointer<curl_slist>?
        guard aether_curl_info_slist(easy, CURLINFO_COOKIELIST, &list) == CURLE_OK else { return [] }
        defer { curl_slist_free_all(list) }
        var lines: [String] = []
        var node = list
        while let item = node {
            if let data = item.pointee.data { lines.append(String(cString: data)) }
            node = item.pointee.next
        }
        return lines
    }

    /// Brings the store back within ``maxCookies`` after an answer through `easy` set cookies:
    /// the count left out. (A cookie another session's answer sets during the trim may be lost
    /// with them: a trim happens only past the budget.)
    func trim(through easy: UnsafeMutableRawPointer) -> Int {
        let kept = lines(through: easy)
        guard kept.count > Self.maxCookies else { return 0 }
        _ = aether_curl_set_string(easy, CURLOPT_COOKIELIST, "ALL")
        for line in kept.prefix(Self.maxCookies) { _ = aether_curl_set_string(easy, CURLOPT_COOKIELIST, line) }
        return kept.count - Self.maxCookies
    }
}
