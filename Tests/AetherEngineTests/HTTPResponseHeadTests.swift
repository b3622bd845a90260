@testable import AetherMedia
import AetherTransport
import Testing

/// An HTTP response's head read within its budgets (unit tier): the status line and fields,
/// the body's offset over any cut into reads, and a head that never ends refused at its budget
/// with the budget named, before more than the budget is kept.
@Suite struct HTTPResponseHeadTests {
    static func read(_ text: String, step: Int = .max) -> (HTTPResponseHead, HTTPResponseHead.Outcome) {
        var head = HTTPResponseHead()
        let bytes = Array(text.utf8)
        var outcome = HTTPResponseHead.Outcome.incomplete
        for start in stride(from: 0, to: bytes.count, by: min(step, max(1, bytes.count))) where outcome == .incomplete {
            outcome = bytes[start..<min(bytes.count, start + step)].withUnsafeBytes { head.feed($0) }
        }
        return (head, outcome)
    }

    @Test func aHeadIsReadWhicheverWayItIsCut() {
        let text = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 10-19/100\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\nbody"
        for step in [1, 2, 7, 64, .max] {
            let (head, outcome) = Self.read(text, step: step)
            #expect(outcome == .complete(bodyOffset: text.utf8.count - 4), "step \(step)")
            #expect(head.status == 206 && head.reason == "Partial Content")
            #expect(head.value("content-range") == "bytes 10-19/100")
            #expect(head.fields.filter { $0.name == "set-cookie" }.map(\.value) == ["a=1", "b=2"])
        }
    }

    @Test func bareLineFeedsAndShoutcastAreAnswers() {
        let (lf, lfOutcome) = Self.read("HTTP/1.0 302 Found\nLocation: /next\n\n")
        #expect(lfOutcome == .complete(bodyOffset: 36) && lf.status == 302 && lf.value("location") == "/next")
        let (icy, icyOutcome) = Self.read("ICY 200 OK\r\nicy-metaint: 16000\r\n\r\n")
        #expect(icyOutcome == .complete(bodyOffset: 34) && icy.status == 200 && icy.value("icy-metaint") == "16000")
    }

    @Test func whatIsNotHTTPIsRefusedAndAnOddFieldLeftOut() {
        let (_, outcome) = Self.read("SSH-2.0-OpenSSH_9.2\r\n\r\n")
        #expect(outcome == .refused("the server's answer is not HTTP: 'SSH-2.0-OpenSSH_9.2'"))
        let (head, kept) = Self.read("HTTP/1.1 200 OK\r\nno colon here\r\nBad Name: x\r\nGood: y\r\n\r\n")
        #expect(kept == .complete(bodyOffset: 56) && head.malformed == 2 && head.fields.map(\.name) == ["good"])
    }

    /// Endless headers (a Set-Cookie stream): refused at the byte budget with long lines, at the
    /// line budget with short ones, and what is kept stays within the budget.
    @Test func endlessHeadersStopAtTheirBudget() {
        var long = HTTPResponseHead(), short = HTTPResponseHead()
        let status = Array("HTTP/1.1 200 OK\r\n".utf8)
        _ = status.withUnsafeBytes { long.feed($0) }
        _ = status.withUnsafeBytes { short.feed($0) }
        let longLine = Array("Set-Cookie: c=\(String(repeating: "x", count: 2000)); Path=/\r\n".utf8)
        let shortLine = Array("Set-Cookie: c=x\r\n".utf8)
        var longOutcome = HTTPResponseHead.Outcome.incomplete, shortOutcome = HTTPResponseHead.Outcome.incomplete
        var fed = 0
        while (longOutcome == .incomplete || shortOutcome == .incomplete) && fed < 1000 {
            if longOutcome == .incomplete { longOutcome = longLine.withUnsafeBytes { long.feed($0) } }
            if shortOutcome == .incomplete { shortOutcome = shortLine.withUnsafeBytes { short.feed($0) } }
            fed += 1
        }
        #expect(longOutcome == .refused("the response's header is longer than 64 KiB (the header budget)"))
        #expect(shortOutcome == .refused("the response's header has more than 256 lines (the header budget)"))
        #expect(long.fields.reduce(0) { $0 + $1.value.utf8.count } < HTTPResponseHead.maxBytes)
        #expect(short.fields.count < HTTPResponseHead.maxLines)
        // Refused stays refused.
        #expect(shortLine.withUnsafeBytes { short.feed($0) } == shortOutcome)
    }
}
