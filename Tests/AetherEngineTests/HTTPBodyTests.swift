@testable import AetherMedia
import AetherTransport
import CZlib
import Testing

/// The body of our HTTP exchange (unit tier): codings and station blocks, each the same however
/// the bytes are cut into reads (libcurl frames it: ``HTTPTransfer``). And the request
/// it asks libcurl for: range, station, and no line break in any of it; the range check.
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
        while body.hasPending, state == .open, rounds < 100_000 {
            state = [UInt8]().withUnsafeBytes { body.feed($0, into: &out) }
            rounds += 1
        }
        return (out, state)
    }

    /// A body that is its payload is handed on untouched; a coding or station blocks are not.
    @Test func aPlainBodyPassesThrough() {
        #expect(HTTPBody(coding: "").passesThrough && HTTPBody(coding: "br").passesThrough)
        #expect(!HTTPBody(coding: "gzip").passesThrough && !HTTPBody(metaint: 8).passesThrough)
        var body = HTTPBody()
        var out: [UInt8] = []
        #expect(Array("hello".utf8).withUnsafeBytes { body.feed($0, into: &out) } == .open)
        #expect(out == Array("hello".utf8) && body.ended() == nil)
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
        let (out, state) = Self.decode(HTTPBody(coding: "gzip"), packed, step: step)
        #expect(out == text && state == .open)
        var body = HTTPBody(coding: "gzip")
        var first: [UInt8] = []
        _ = packed.withUnsafeBytes { body.feed($0, into: &first) }
        #expect(first.count <= HTTPBody.inflateStep && body.hasPending)
        let (_, broken) = Self.decode(HTTPBody(coding: "gzip"), Array("not gzip at all".utf8), step: 4)
        if case .malformed = broken {} else { Issue.record("\(broken)") }
    }

    /// A gzip stream cut short (a server that stops mid-stream, the fuzzer's finding): what
    /// waits for more bytes is not pending (the drain stops), and the body's end says it was cut.
    @Test func aCutGzipStreamEndsAsCutNotInALoop() throws {
        let packed = Self.gzip(Array(String(repeating: "#EXTINF:2,\nseg.ts\n", count: 1000).utf8))
        for cut in [10, packed.count / 2, packed.count - 4] {
            var body = HTTPBody(coding: "gzip")
            var out: [UInt8] = []
            _ = packed.prefix(cut).withUnsafeBytes { body.feed($0, into: &out) }
            var rounds = 0
            while body.hasPending, rounds < 1000 {
                _ = [UInt8]().withUnsafeBytes { body.feed($0, into: &out) }
                rounds += 1
            }
            #expect(rounds < 1000 && !body.hasPending, "\(cut): \(rounds) drains")
            #expect(body.ended() == "the compressed body ended before its compressed stream did", "\(cut)")
        }
        // Whole, it ends clean.
        var whole = HTTPBody(coding: "gzip")
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
        var body = HTTPBody(metaint: 8)
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
            .transfer(to: "http://example.test:8080/a/b.m3u8?x=1"))
        #expect(asked.url == "http://example.test:8080/a/b.m3u8?x=1" && asked.userAgent == "UA" && asked.range == 100)
        #expect(asked.fields == ["Accept: */*", "Icy-MetaData: 1", "X-A: 1", "X-B: 2"], "\(asked.fields)")
        let plain = try #require(HTTPConnection.Request(url: "", options: [:], range: nil).transfer(to: "https://x.test/"))
        #expect(plain.range == nil && plain.fields == ["Accept: */*"] && plain.userAgent?.hasPrefix("Lavf") == true)
        // A line break in any value refuses the request (no header is injected).
        #expect(HTTPConnection.Request(url: "", options: ["referer": "a\r\nX: injected"]).transfer(to: "http://x.test/") == nil)
        #expect(HTTPConnection.Request(url: "", options: ["user_agent": "a\nX: injected"]).transfer(to: "http://x.test/") == nil)
        #expect(HTTPConnection.Request(url: "", options: ["headers": "X: 1\nY: 2\r\n"]).transfer(to: "http://x.test/") == nil)
    }

    /// A connect that failed names the proxy when libcurl's words name an address that is not
    /// the URL's (libcurl says which it tried, not whether it was a proxy).
    @Test func aRefusedConnectNamesTheProxyItTried() {
        let words = "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"
        #expect(HTTPConnection.proxyTried(words, url: "http://example.test/a.mp4") == "127.0.0.1 port 1")
        #expect(HTTPConnection.proxyTried(words, url: "http://127.0.0.1:1/a.mp4") == nil)
        #expect(HTTPConnection.proxyTried("Failed to connect to example.test port 443 after 5 ms: Could not connect to server",
                                          url: "https://EXAMPLE.test/x") == nil, "the default port, the host in any case")
        #expect(HTTPConnection.proxyTried("Failed to connect to proxy.test port 3128 after 5 ms: x", url: "https://example.test/x") == "proxy.test port 3128")
        #expect(HTTPConnection.proxyTried("Couldn't connect to server", url: "http://example.test/") == nil)
        #expect(HTTPConnection.proxyTried("Failed to connect to \u{1B}[31mx port 9 after", url: "http://example.test/")?.contains("\u{1B}") == false)
    }

    static func head(_ text: String) -> HTTPResponseHead {
        var head = HTTPResponseHead()
        _ = Array((text + "\r\n").utf8).withUnsafeBytes { head.feed($0) }
        return head
    }

    /// The range check a resumed read stands on: the byte a 206 starts at against the one asked
    /// for, a 200 to a request from a later byte, and the resource's length where it is said.
    @Test func theRangeCheckReadsTheAnswersHead() {
        let resumed = RangeAnswer(Self.head("HTTP/1.1 206 Partial\r\nContent-Range: bytes 100-199/1000\r\n"), asked: 100)
        #expect(resumed == RangeAnswer(start: .asked, total: 1000, servesRanges: true))
        #expect(RangeAnswer(Self.head("HTTP/1.1 206 Partial\r\nContent-Range: bytes 0-99/1000\r\n"), asked: 100).start == .otherByte(0))
        #expect(RangeAnswer(Self.head("HTTP/1.1 206 Partial\r\nContent-Range: bytes 100-199/*\r\n"), asked: 100).total == nil)
        // Not that form: no verdict on the byte, no length.
        for field in ["items 1-2/3", "bytes -5-9/10", "bytes 99999999999999999999-1/2", "bytes 5/10-20"] {
            let answer = RangeAnswer(Self.head("HTTP/1.1 206 Partial\r\nContent-Range: \(field)\r\n"), asked: 7)
            #expect(answer.start == .asked && answer.total == nil, "\(field)")
        }
        // A total not past the first byte says no length.
        #expect(RangeAnswer(Self.head("HTTP/1.1 206 Partial\r\nContent-Range: bytes 10-20/5\r\n"), asked: 10) == RangeAnswer(start: .asked, total: nil, servesRanges: true))
        let whole = RangeAnswer(Self.head("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nAccept-Ranges: bytes\r\n"), asked: 100)
        #expect(whole == RangeAnswer(start: .resourceStart, total: 5000, servesRanges: true))
        #expect(RangeAnswer(Self.head("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n"), asked: 0).start == .asked)
        #expect(RangeAnswer(Self.head("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n"), asked: nil) == RangeAnswer(start: .asked, total: 5000, servesRanges: false))
        // A coded or chunked body's length is not the resource's.
        #expect(RangeAnswer(Self.head("HTTP/1.1 200 OK\r\nContent-Length: 50\r\nContent-Encoding: gzip\r\n"), asked: nil).total == nil)
        #expect(RangeAnswer(Self.head("HTTP/1.1 200 OK\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n"), asked: nil).total == nil)
    }
}
