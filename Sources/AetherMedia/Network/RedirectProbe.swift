import AetherTransport
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
    /// Explains `error` (an open of `url` that failed) when a redirect caused it; its time is
    /// `interrupt`'s clock.
    package static func explain(error: Int32, url: String, options: [String: String], interrupt: InterruptToken,
                                timeout: Double, policy: TransportSession.Policy = .init()) -> String? {
        guard error == aether_AVERROR(EIO) || error == aether_AVERROR(EINVAL),
              ["http", "https"].contains(NetworkSettings.scheme(of: url) ?? "") else { return nil }
        do throws(HTTPConnection.Failure) {
            _ = try HTTPConnection.open(.init(url: url, options: options), transport: TransportSession(policy: policy),
                                        interrupt: interrupt, clock: interrupt.clock, timeout: max(0.1, min(timeout, 60)))
            return nil
        } catch {
            guard let failure = error.failure, failure.cause == .policy else { return nil }
            return failure.line
        }
    }

    /// Whether an https `url`'s port answers TCP but its TLS handshake fails (libavformat says
    /// "Input/output error" for both a handshake that failed and much else): libcurl's
    /// handshake, with the certificate not judged (that is not the question here).
    package static func handshakeFails(url: String, interrupt: InterruptToken, timeout: Double) -> Bool {
        guard NetworkSettings.scheme(of: url) == "https" else { return false }
        let transfer = HTTPTransfer(HTTPTransfer.Request(url: url), session: TransportSession(policy: .init(verifyPeer: false)),
                                    connectTimeout: min(timeout, 60))
        do throws(HTTPTransfer.Failure) {
            _ = try transfer.head(timeout: min(timeout, 60), clock: interrupt.clock) { interrupt.shouldInterrupt }
            return false
        } catch {
            if case .transport(let code, _, _) = error { return code == HTTPTransfer.Failure.tlsConnect }
            return false
        }
    }
}
