import AetherTransport
import AetherMedia

/// The `httphead` target's body half (aether-fuzz): what follows a whole head is read as the
/// head codes it (a station's blocks asked for; libcurl has framed it), fed whole and in reads of `step`
/// bytes, each drained of what it inflates. What is promised traps when broken: the same
/// payload, state and last station block either way; one feed inflates at most
/// ``HTTPBody/inflateStep``; a block is at most 255 × 16 bytes; no payload without a body.
enum HTTPBodyCheck {
    static func run(head: HTTPResponseHead, body bytes: [UInt8], step: Int) {
        let whole = decode(HTTPBody(answer: head, icy: true), bytes, step: max(1, bytes.count))
        let cut = decode(HTTPBody(answer: head, icy: true), bytes, step: step)
        precondition(whole.payload == cut.payload, "\(whole.payload.count) bytes whole, \(cut.payload.count) in reads of \(step)")
        precondition(whole.state == cut.state, "\(whole.state) whole, \(cut.state) in reads of \(step)")
        precondition(whole.block == cut.block, "another last station block in reads of \(step)")
    }

    private static func decode(_ start: HTTPBody, _ bytes: [UInt8], step: Int) -> (payload: [UInt8], state: HTTPBody.State, block: [UInt8]?) {
        var body = start
        var out: [UInt8] = []
        var state = HTTPBody.State.open
        var block: [UInt8]?
        func feed(_ piece: ArraySlice<UInt8>) {
            let before = out.count
            state = piece.withUnsafeBytes { body.feed($0, into: &out) }
            precondition(out.count - before <= max(piece.count, HTTPBody.inflateStep), "one feed gave \(out.count - before) bytes")
            if let b = body.takeStationBlock() {
                precondition(b.count <= 255 * 16 && !b.contains(0), "a station block of \(b.count) bytes")
                block = b
            }
        }
        for offset in stride(from: 0, to: bytes.count, by: step) where state == .open {
            feed(bytes[offset..<min(bytes.count, offset + step)])
        }
        // What a gzip body inflates to, at most 64 MiB (the drain of a bomb is the reader's budget).
        while body.hasPending, out.count < 64 << 20 { feed([]) }
        precondition(!bytes.isEmpty || out.isEmpty, "a payload from no body")
        return (out.count < 64 << 20 ? out : [], state, block)
    }
}
