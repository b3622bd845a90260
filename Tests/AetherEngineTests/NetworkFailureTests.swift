import AetherMedia
import Testing

/// Tier: unit. A network failure's cause decides the exit status (the network's, 5, when the
/// network failed to deliver; the usual one when what it delivered was refused) and names
/// itself in the stats box and file.
@Suite struct NetworkFailureTests {
    @Test func eachCauseIsTheNetworksOrARefusalAndHasAName() {
        let causes: [(NetworkFailure.Cause, transport: Bool, name: String)] = [
            (.dns(host: "example.invalid"), true, "host not found"), (.refused, true, "refused"), (.timedOut, true, "timed out"),
            (.reset, true, "reset"), (.http(status: 404), true, "HTTP 404"), (.tls, true, "TLS"),
            // Issue 59: a certificate nobody trusted is the network's status, as curl's 60 is its own.
            (.certificate, true, "certificate"), (.closed, true, "closed early"),
            (.budget("the header budget"), false, "budget"), (.policy, false, "policy"), (.other, false, "error"),
        ]
        for (cause, transport, name) in causes {
            #expect(cause.isTransport == transport, "\(cause)")
            #expect(cause.name == name, "\(cause)")
        }
    }
}
