import AetherBase

/// Waiting for a terminal to have taken what was written: DA1 (`CSI c`), which every terminal
/// (and tmux itself) answers in order, sent after the bytes; its answer means everything before
/// it was absorbed. Queries sent and not answered yet are counted, so a late answer is the
/// earlier query's, never the next one's. Keys typed while the answers are read are kept (at
/// most ``strayLimit`` bytes, about what ncurses' input queue holds) for the host's input, so a
/// `q` is never lost.
///
/// The throughput trial times frames with it; inside tmux the TUI waits with it, before its first
/// picture, for the terminal outside to have caught up.
public struct AttributesRoundTrip {
    public static let query: [UInt8] = Array("\u{1B}[c".utf8)
    public static let strayLimit = 128

    /// Keys typed while answers were read, in order.
    public private(set) var stray: [UInt8] = []
    /// Queries sent and not answered yet.
    public private(set) var outstanding = 0
    private var parser = ReplyParser()

    public init() {}

    /// The query, wrapped for the outer terminal when `throughTmux` (tmux answers a bare one itself).
    public static func query(throughTmux: Bool) -> [UInt8] { throughTmux ? TmuxPassthrough.wrap(query) : query }

    /// Counts a query the caller sent.
    public mutating func sent() { outstanding += 1 }

    /// Sends the query through `transport` and counts it.
    public mutating func send<T: ProbeTransport>(_ transport: inout T, throughTmux: Bool = false) throws(SystemCallError) {
        try transport.send(Self.query(throughTmux: throughTmux))
        sent()
    }

    /// Waits until the terminal outside tmux answers a fresh query through the passthrough, then
    /// forgets what is still unanswered. tmux (3.3a to 3.5a, `allow-passthrough on`) drops
    /// passthrough while a redraw of the pane is pending: after a clear that removed its own
    /// sixel images, after an alternate-screen switch, while its output to the terminal is backed
    /// up. So the query is sent again every `interval` ms until one is answered (true) or
    /// `deadline` passes (false); answers still arriving within `interval` of each other are
    /// read, and the rest counted as dropped. Outside tmux nothing is dropped: ``await(_:until:any:now:)``.
    public mutating func settle<T: ProbeTransport>(_ transport: inout T, until deadline: Double, interval: Double = 100,
                                                   now: () -> Double) throws(SystemCallError) -> Bool {
        defer { outstanding = 0 }
        while now() < deadline {
            try send(&transport, throughTmux: true)
            guard try self.await(&transport, until: min(deadline, now() + interval), any: true, now: now) else { continue }
            while outstanding > 0, try self.await(&transport, until: now() + interval, any: true, now: now) {}
            return true
        }
        return false
    }

    /// Reads until every query sent is answered (`any`: one of them) (true) or `deadline` passes
    /// (false); `now` in milliseconds.
    public mutating func await<T: ProbeTransport>(_ transport: inout T, until deadline: Double, any: Bool = false,
                                                  now: () -> Double) throws(SystemCallError) -> Bool {
        let before = outstanding
        while outstanding > 0, !any || outstanding == before {
            let left = deadline - now()
            guard left > 0 else { return false }
            let bytes = try transport.receive(timeout: .milliseconds(max(1, Int(left.rounded(.up)))))
            guard !bytes.isEmpty else { continue }
            let parsed = parser.feed(bytes)
            stray += parsed.stray.prefix(max(0, Self.strayLimit - stray.count))
            outstanding = max(0, outstanding - parsed.replies.filter { if case .deviceAttributes = $0 { true } else { false } }.count)
        }
        return true
    }
}
