import AetherEngine
@testable import AetherPlayback
import Testing

/// The host's reports on presented frames, folded into the lead the engine hands frames over by.
struct PresentationFeedbackTests {
    @Test func theLeadIsTheMedianOfTheLastSixteenLatenciesOnceFourAreKnown() {
        let feedback = PresentationFeedback()
        #expect(feedback.displayed(serial: 1, latency: 0.010))
        #expect(!feedback.displayed(serial: 1, latency: 0.030))
        #expect(!feedback.displayed(serial: 0, latency: 0.020), "an older serial is not news")
        #expect(feedback.presentationLead == 0, "three latencies say nothing yet")
        _ = feedback.displayed(serial: 1, latency: 0.040)
        #expect(abs(feedback.presentationLead - 0.025) < 1e-9)
        _ = feedback.displayed(serial: 1, latency: nil)   // nothing painted: no latency
        _ = feedback.displayed(serial: 1, latency: -.infinity)
        #expect(abs(feedback.presentationLead - 0.025) < 1e-9)
        for _ in 0..<16 { _ = feedback.displayed(serial: 2, latency: 0.050) }
        #expect(feedback.presentationLead == 0.050, "only the last sixteen count")
    }
}
