/// The loop's events in the order they happen, each handled to its end (its update and its
/// effects) before the next begins. An event sent while one is handled (the controller telling
/// the screen what a command did, from inside the effect that ran the command) waits its turn
/// instead of running inside the first one's effects: Elm's and Bubble Tea's runtimes queue
/// their messages the same way. UI thread only.
final class EventInbox<Event> {
    private var waiting: [Event] = []
    private var handling = false

    /// Handles `event` with `handle` now, then every event delivered meanwhile, in order; while
    /// an event is handled, `event` is only queued (the outer call handles it next).
    func deliver(_ event: Event, to handle: (Event) -> Void) {
        waiting.append(event)
        guard !handling else { return }
        handling = true
        defer { handling = false }
        while !waiting.isEmpty {
            handle(waiting.removeFirst())
        }
    }

    /// Events queued and not yet handled (0 between events).
    var queued: Int { waiting.count }
}
