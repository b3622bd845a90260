@testable import AetherControl
import Testing

/// The stall watchdog on a manual clock in milliseconds (unit tier): a source whose newest
/// timestamp stands still while bytes arrive is wedged, one that trickles is slow.
@Suite struct StallWatchdogTests {
    static func ms(_ v: Int) -> Double { Double(v) / 1000 }
    static let enough = StallWatchdog.minimumBytes

    @Test func bytesWithoutANewerTimestampAreAWedgeSaidOnce() {
        var w = StallWatchdog()
        #expect(w.observe(now: 0, newest: 100, bytes: 0) == .fine)
        // The server goes on sending; the newest timestamp stays at 100 s (older ones come again).
        #expect(w.observe(now: Self.ms(9_999), newest: 100, bytes: Self.enough) == .fine, "not yet 10 s")
        #expect(w.observe(now: Self.ms(10_000), newest: 100, bytes: Self.enough) == .wedged(bytes: Self.enough, seconds: 10))
        #expect(w.observe(now: Self.ms(10_020), newest: 100, bytes: Self.enough) == .fine, "said once; the watch starts again")
        #expect(w.observe(now: Self.ms(20_000), newest: 100, bytes: Self.enough) == .fine, "no byte since: slow, not wedged")
        #expect(w.observe(now: Self.ms(30_000), newest: 100, bytes: Self.enough * 2) == .wedged(bytes: Self.enough, seconds: 10), "and again")
    }

    @Test func aTrickleIsSlowNotWedged() {
        var w = StallWatchdog()
        _ = w.observe(now: 0, newest: 5, bytes: 1000)
        #expect(w.observe(now: Self.ms(12_000), newest: 5, bytes: 1000 + Self.enough - 1) == .fine)
    }

    @Test func timestampsThatMoveOnKeepItFine() {
        var w = StallWatchdog()
        var bytes: Int64 = 0
        for k in 0..<600 {
            bytes += 100_000
            #expect(w.observe(now: Self.ms(k * 100), newest: Double(k) * 0.1, bytes: bytes) == .fine)
        }
        // Nothing read yet: no verdict, however many bytes.
        var fresh = StallWatchdog()
        #expect(fresh.observe(now: 0, newest: nil, bytes: 0) == .fine)
        #expect(fresh.observe(now: 60, newest: nil, bytes: Self.enough * 10) == .fine)
    }
}
