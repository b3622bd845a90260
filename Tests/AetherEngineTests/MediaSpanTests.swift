@testable import AetherPlayback
import Testing

/// The media time the average bit rate is over (unit tier): reading ahead adds bytes and time
/// alike, so the first telemetry line already gives the stream's own rate.
@Suite struct MediaSpanTests {
    @Test func stretchesFollowThePacketsAndASeekBeginsANewOne() {
        var span = MediaSpan()
        // Audio and video interleaved, 0 to 2 s (video 24 fps, audio ahead by half a second).
        for k in 0..<48 {
            span.add(Double(k) / 24, duration: 1.0 / 24)
            span.add(0.5 + Double(k) / 24, duration: 1.0 / 24)
        }
        #expect(abs(span.seconds - (0.5 + 2)) < 1e-9)
        // A seek forward to 60 s: a new stretch of 1 s, not 58 s more.
        for k in 0..<24 { span.add(60 + Double(k) / 24, duration: 1.0 / 24) }
        #expect(abs(span.seconds - 3.5) < 1e-9)
        // Back to 10 s: another stretch.
        span.add(10, duration: 0.5)
        #expect(abs(span.seconds - 4) < 1e-9)
        // Nonsense times change nothing.
        span.add(.nan, duration: 1)
        span.add(11, duration: .infinity)
        #expect(abs(span.seconds - 4) < 1e-9)
    }
}
