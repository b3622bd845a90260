import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Why an HTTP(S) open through libavformat's http protocol failed, when its words say nothing: it
/// follows redirects by itself and, past 8 of them, fails with "Input/output error"; a redirect
/// to another scheme (a local file) fails with "Invalid argument". This makes the exchange again
/// as ours (``HTTPConnection``, with the source's headers), which names the cause: `redirect loop
/// after 10 hops`, `redirect to a local file refused`, … Nil when the chain is not the cause.
package enum RedirectProbe {
    /// Explains `error` (an open of `url` that failed) when a redirect caused it.
    package static func explain(error: Int32, url: String, options: [String: String], interrupt: InterruptToken,
                                timeout: Double, clock: TimeSource = .monotonic) -> String? {
        guard error == aether_AVERROR(EIO) || error == aether_AVERROR(EINVAL),
              ["http", "https"].contains(NetworkSettings.scheme(of: url) ?? "") else { return nil }
        var jar = HTTPCookieJar()
        do throws(HTTPConnection.Failure) {
            _ = try HTTPConnection.open(.init(url: url, options: options), jar: &jar, interrupt: interrupt, clock: clock,
                                        timeout: max(0.1, min(timeout, 60)))
            return nil
        } catch {
            guard let failure = error.failure, failure.cause == .policy else { return nil }
            return failure.line
        }
    }

    /// Whether an https `url`'s port answers TCP but its TLS handshake fails (libavformat says
    /// "Input/output error" for both a handshake that failed and much else).
    package static func handshakeFails(url: String, interrupt: InterruptToken, timeout: Double) -> Bool {
        guard NetworkSettings.scheme(of: url) == "https", let target = HTTPTarget(url) else { return false }
        func opens(_ target: String) -> Bool {
            guard let made = try? HTTPConnection.connect(target, interrupt: interrupt, timeout: min(timeout, 60)) else { return false }
            var pb: UnsafeMutablePointer<AVIOContext>? = made
            avio_closep(&pb)
            return true
        }
        return opens("tcp://\(target.address)") && !opens("tls://\(target.address)")
    }
}
