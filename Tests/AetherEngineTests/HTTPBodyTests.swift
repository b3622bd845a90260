@testable import AetherMedia
import AetherTransport
import CZlib
import Testing

/// The body of our HTTP exchange (unit tier): framing, codings, station blocks, each the same
/// however the bytes are cut into reads; each line it reads within its budget. And the request
/// it asks libcurl for: range, station, cookies, and no line break in any of it.
@Suite struct HTTPBodyTests {
    /// Feeds `bytes` in reads of `step` bytes, then drains what is pending; the payload and the
    /// last state.
    static func decode(_ body: HTTPBody, _ bytes: [UInt8], step: Int) -> ([UInt8], HTTPBody.State) {
        var body = body
        var out: [UInt8] = []
        var state = HTTPBody.State.open
        for start in stride(from: 0, to: bytes.count, by: step) where state == .open {
            state = bytes[start..<min(bytes.count, start + step)].withUnsafeBytes { body.feed($0, into: &out) }
        }
        var rounds = 0
        while body.hasPending, state != .complete, rounds < 100_000 {
            state = [UInt8]().withUnsafeBytes { body.feed($0, into: &out) }
            rounds += 1
        }
        return (out, body.isComplete ? .complete : state)
    }

    static func chunked(_ pieces: [String], trailer: String = "") -> [UInt8] {
        var text = ""
        for piece in pieces { text += String(piece.utf8.count, radix: 16) + ";ext=1\r\n" + piece + "\r\n" }
        return Array((text + "0\r\n" + trailer + "\r\n").utf8)
    }

    @Test(arguments: [1, 2, 7, 4096])
    func chunksAreJoinedHoweverTheyAreCut(step: Int) {
        let bytes = Self.chunked(["#EXTM3U\n", "", "#EXT-X-TARGETDURATION:2\n"].filter { !$0.isEmpty }, trailer: "X-Trailer: 1\r\n")
        let (out, state) = Self.decode(HTTPBody(framing: .chunked), bytes + Array("HTTP/1.1 200 OK".utf8), step: step)
        #expect(String(decoding: out, as: UTF8.self) == "#EXTM3U\n#EXT-X-TARGETDURATION:2\n")
        #expect(state == .complete)
    }

    @Test func brokenChunksAreNamed() {
        let cases: [(String, String)] = [
            ("zz\r\nabc\r\n", "not a hexadecimal number"),
            ("3\r\nabcdef\r\n", "did not end where its size said"),
            (String(repeating: "1", count: 2000) + "\r\n", "longer than its budget"),
            ("fffffffffffffffffff\r\n", "not a hexadecimal number"),
            ("-E\r\nabc\r\n", "not a hexadecimal number"),   // a sign: a negative size (the fuzzer's)
            ("+5\r\nabcde\r\n", "not a hexadecimal number"),
        ]
        for (text, says) in cases {
            let (_, state) = Self.decode(HTTPBody(framing: .chunked), Array(text.utf8), step: 3)
            guard case .malformed(let line) = state else { Issue.record("\(text.prefix(20)): \(state)"); continue }
            #expect(line.contains(says), "\(line)")
        }
        // An endless trailer stops at its budget.
        let trailer = Array("0\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: HTTPBody.maxTrailer + 10)
        #expect(Self.decode(HTTPBody(framing: .chunked), trailer, step: 1000).1 != .open)
    }

    @Test func aLengthEndsTheBodyAndACutOneSaysSo() {
        var body = HTTPBody(framing: .length(5))
        var out: [UInt8] = []
        #expect(Array("hel".utf8).withUnsafeBytes { body.feed($0, into: &out) } == .open)
        #expect(body.ended() == "the body ended 2 bytes short of its length")
        #expect(Array("lo, more".utf8).withUnsafeBytes { body.feed($0, into: &out) } == .complete)
        #expect(out == Array("hello".utf8) && body.ended() == nil)
        #expect(HTTPBody(framing: .close).ended() == nil)
        #expect(HTTPBody(framing: .chunked).ended() == "the chunked body ended before its last chunk")
    }

    static func gzip(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(&stream, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        var input = data
        input.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                _ = deflate(&stream, Z_FINISH)
            }
        }
        return Array(out.prefix(Int(stream.total_out)))
    }

    /// A gzip body is inflated whatever the reads; a bomb comes out at most
    /// ``HTTPBody/inflateStep`` per feed (its reader's budget stops it).
    @Test(arguments: [1, 100, 1 << 20])
    func aGzipBodyIsInflatedInSteps(step: Int) {
        let text = Array(String(repeating: "#EXTINF:2,\nseg.ts\n", count: 40_000).utf8)
        let packed = Self.gzip(text)
        #expect(packed.count < text.count / 50)
        let (out, state) = Self.decode(HTTPBody(framing: .length(Int64(packed.count)), coding: "gzip"), packed, step: step)
        #expect(out == text && state == .complete)
        var body = HTTPBody(framing: .close, coding: "gzip")
        var first: [UInt8] = []
        _ = packed.withUnsafeBytes { body.feed($0, into: &first) }
        #expect(first.count <= HTTPBody.inflateStep && body.hasPending)
        let (_, broken) = Self.decode(HTTPBody(framing: .close, coding: "gzip"), Array("not gzip at all".utf8), step: 4)
        if case .malformed = broken {} else { Issue.record("\(broken)") }
    }

    /// A gzip stream cut short (a server that stops mid-stream, the fuzzer's finding): what
    /// waits for more bytes is not pending (the drain stops), and the body's end says it was cut.
    @Test func aCutGzipStreamEndsAsCutNotInALoop() throws {
        let packed = Self.gzip(Array(String(repeating: "#EXTINF:2,\nseg.ts\n", count: 1000).utf8))
        for cut in [10, packed.count / 2, packed.count - 4] {
            var body = HTTPBody(framing: .length(Int64(cut)), coding: "gzip")
            var out: [UInt8] = []
            _ = packed.prefix(cut).withUnsafeBytes { body.feed($0, into: &out) }
            var rounds = 0
            while body.hasPending, rounds < 1000 {
                _ = [UInt8]().withUnsafeBytes { body.feed($0, into: &out) }
                rounds += 1
            }
            #expect(rounds < 1000 && body.isComplete, "\(cut): \(rounds) drains")
            #expect(body.ended() == "the compressed body ended before its compressed stream did", "\(cut)")
        }
        // Whole, it ends clean.
        var whole = HTTPBody(framing: .close, coding: "gzip")
        var out: [UInt8] = []
        _ = packed.withUnsafeBytes { whole.feed($0, into: &out) }
        #expect(whole.ended() == nil)
    }

    /// A station's title blocks come out of the body, the latest one kept, however cut.
    @Test(arguments: [1, 5, 64])
    func stationBlocksAreTakenOut(step: Int) {
        let title = Array("StreamTitle='Song';".utf8)
        let block = title + [UInt8](repeating: 0, count: 32 - title.count)
        let audio = [UInt8](repeating: 0xAB, count: 8)
        let bytes = audio + [2] + block + audio + [0] + audio + [1] + Array("StreamTitle='x';".utf8) + audio.prefix(3)
        var body = HTTPBody(framing: .close, metaint: 8)
        var out: [UInt8] = []
        var blocks: [[UInt8]] = []
        for start in stride(from: 0, to: bytes.count, by: step) {
            _ = bytes[start..<min(bytes.count, start + step)].withUnsafeBytes { body.feed($0, into: &out) }
            if let b = body.takeStationBlock() { blocks.append(b) }
        }
        #expect(out == audio + audio + audio + audio.prefix(3))
        #expect(blocks.last == Array("StreamTitle='x';".utf8) && blocks.contains(title))
    }

    @Test func theRequestSaysWhatItAsksFor() throws {
        let asked = try #require(HTTPConnection.Request(url: "", options: ["user_agent": "UA", "headers": "X-A: 1\r\nX-B: 2\r\n"], range: 100, icy: true)
            .transfer(to: "http://example.test:8080/a/b.m3u8?x=1", cookie: "a=b"))
        #expect(asked.url == "http://example.test:8080/a/b.m3u8?x=1" && asked.userAgent == "UA" && asked.range == 100 && asked.cookie == "a=b")
        #expect(asked.fields == ["Accept: */*", "Icy-MetaData: 1", "X-A: 1", "X-B: 2"], "\(asked.fields)")
        let plain = try #require(HTTPConnection.Request(url: "", options: [:], range: nil).transfer(to: "https://x.test/", cookie: nil))
        #expect(plain.range == nil && plain.cookie == nil && plain.fields == ["Accept: */*"] && plain.userAgent?.hasPrefix("Lavf") == true)
        // A line break in any value refuses the request (no header is injected).
        #expect(HTTPConnection.Request(url: "", options: ["referer": "a\r\nX: injected"]).transfer(to: "http://x.test/", cookie: nil) == nil)
        #expect(HTTPConnection.Request(url: "", options: ["user_agent": "a\nX: injected"]).transfer(to: "http://x.test/", cookie: nil) == nil)
        #expect(HTTPConnection.Request(url: "", options: ["headers": "X: 1\nY: 2\r\n"]).transfer(to: "http://x.test/", cookie: nil) == nil)
        #expect(HTTPConnection.Request(url: "", options: [:]).transfer(to: "http://x.test/", cookie: "a=b\r\nX: 1") == nil)
    }

    @Test func theCookieJarKeepsWithinItsBudget() {
        var head = HTTPResponseHead()
        var text = "HTTP/1.1 200 OK\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: bad cookie\r\nSet-Cookie: b=2\r\nSet-Cookie: a=3\r\n"
        for n in 0..<40 { text += "Set-Cookie: c\(n)=x\r\n" }
        _ = Array((text + "\r\n").utf8).withUnsafeBytes { head.feed($0) }
        var jar = HTTPCookieJar()
        jar.take(head, host: "h")
        let sent = jar.header(for: "h") ?? ""
        #expect(sent.hasPrefix("b=2; a=3; c0=x"), "\(sent)")
        #expect(sent.split(separator: ";").count == HTTPCookieJar.maxCookies && jar.leftOut == 1 + 40 - 30)
        #expect(jar.header(for: "other") == nil)
    }
}
