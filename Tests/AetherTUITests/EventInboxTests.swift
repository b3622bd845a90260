@testable import AetherTUI
import Testing

/// The loop's events are handled one at a time, in order: one sent from another's handling
/// (the controller's callbacks, from inside an effect) waits its turn. (Unit tier.)
struct EventInboxTests {
    @Test func anEventSentWhileOneIsHandledWaitsForItsEnd() {
        let inbox = EventInbox<String>()
        var log: [String] = []
        func handle(_ event: String) {
            log.append("begin \(event)")
            // The first event's effects send two more; each is handled after this one ends.
            if event == "key" {
                inbox.deliver("message") { handle($0) }
                #expect(inbox.queued == 1, "the message waits; the key is being handled, not queued")
                inbox.deliver("redraw") { handle($0) }
            }
            if event == "message" { inbox.deliver("tick") { handle($0) } }
            log.append("end \(event)")
        }
        inbox.deliver("key") { handle($0) }
        #expect(log == ["begin key", "end key", "begin message", "end message", "begin redraw", "end redraw",
                        "begin tick", "end tick"])
        #expect(inbox.queued == 0)
        // And the inbox is ready for the next event.
        log = []
        inbox.deliver("tick") { handle($0) }
        #expect(log == ["begin tick", "end tick"])
    }
}
