import AetherBase
import AetherTransport
import CZlib

/// The body of an HTTP response as it arrives, turned into its payload: the framing undone (a
/// `Content-Length`, chunks, or the connection's close: RFC 9112, 6.3), a `gzip` or `deflate`
/// coding inflated, and an internet radio station's in-band title blocks (`icy-metaint`) taken
/// out. Pure: fed bytes, it appends the payload; every line it reads has a budget (a chunk's
/// size line, the trailer), and one feed inflates to at most ``inflateStep`` bytes (the rest
/// stays, for the next feed), so a compressed bomb costs what its reader's budget allows.
///
/// Fed from one thread (the connection's reader).
package struct HTTPBody {
    package enum Framing: Equatable, Sendable {
        /// `Content-Length`: this many bytes.
        case length(Int64)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Until the server closes the connection.
        case close
    }

    /// What a feed found.
    package enum State: Equatable, Sendable {
        /// More may come.
        case open
        /// The body is whole (bytes after it are not the body's).
        case complete
        /// The framing is broken (one line naming it).
        case malformed(String)
    }

    /// A chunk's size line (size and extensions), at most this many bytes.
    package static let maxChunkLine = 1024
    /// The trailer after the last chunk, at most this many bytes.
    package static let maxTrailer = 16 << 10
    /// The payload one feed inflates to, at most.
    package static let inflateStep = 256 << 10

    private let framing: Framing
    private var state = State.open
    /// `.length`: bytes still to come.
    private var left: Int64 = 0
    private var chunk = ChunkReader()
    private let inflater: Inflater?
    /// Compressed bytes read off the connection and not yet inflated.
    private var compressed: [UInt8] = []
    /// The last inflate made nothing of ``compressed``: it needs more bytes first.
    private var starved = false
    private var icy: ICYBlocks?

    /// `coding`: the `Content-Encoding` (lower case; `gzip`, `x-gzip` and `deflate` are
    /// inflated, anything else is passed as it is); `metaint`: a station's `icy-metaint` (a block
    /// after every `metaint` payload bytes; nil or 0: none).
    package init(framing: Framing, coding: String = "", metaint: Int64? = nil) {
        self.framing = framing
        if case .length(let n) = framing { left = max(0, n) }
        inflater = ["gzip", "x-gzip", "deflate"].contains(coding) ? Inflater() : nil
        if let metaint, metaint > 0 { icy = ICYBlocks(interval: metaint) }
        if framing == .length(0) { state = .complete }
    }

    /// The body of a 2xx answer with `head`, as its fields frame and code it (RFC 9112, 6.3:
    /// chunked wins over a length; no length: until the close); `icy`: the request asked for a
    /// station's title blocks (`Icy-MetaData: 1`), so `icy-metaint` is read.
    package init(of head: HTTPResponseHead, icy: Bool) {
        let framing: Framing
        if head.value("transfer-encoding")?.lowercased().contains("chunked") == true {
            framing = .chunked
        } else if let text = head.value("content-length"), let n = Int64(text), n >= 0 {
            framing = .length(n)
        } else {
            framing = .close
        }
        self.init(framing: framing, coding: head.value("content-encoding")?.lowercased() ?? "",
                  metaint: icy ? head.value("icy-metaint").flatMap { Int64($0) } : nil)
    }

    /// The body of a 2xx answer that libcurl has framed already (its length and chunks
    /// undone: ``HTTPTransfer``): `head`'s content coding inflated, and with `icy` its station's
    /// title blocks taken out; it ends where the transfer ends.
    package init(answer head: HTTPResponseHead, icy: Bool) {
        self.init(framing: .close, coding: head.value("content-encoding")?.lowercased() ?? "",
                  metaint: icy ? head.value("icy-metaint").flatMap { Int64($0) } : nil)
    }

    /// Whether the body's framing is whole and nothing is left to inflate.
    package var isComplete: Bool { state == .complete && !hasPending }
    /// Whether inflated payload is waiting (a feed of no bytes gives more of it); not when what
    /// is left to inflate needs more bytes first.
    package var hasPending: Bool { !compressed.isEmpty && !starved }

    /// The latest in-band title block not taken yet (its bytes up to the first NUL).
    package mutating func takeStationBlock() -> [UInt8]? { icy?.take() }

    /// Reads `bytes` (off the connection) and appends what they carry of the payload to `out`.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) -> State {
        var content: [UInt8] = []
        var input = bytes[...]
        while !input.isEmpty, state == .open {
            switch framing {
            case .close:
                content += input
                input = input[input.endIndex...]
            case .length:
                let n = Int(min(Int64(input.count), left))
                content += input.prefix(n)
                input = input.dropFirst(n)
                left -= Int64(n)
                if left == 0 { state = .complete }
            case .chunked:
                state = chunk.read(&input, into: &content)
            }
        }
        // (What the framing carried before a fault is delivered, whichever read brought it.)
        return deliver(content, into: &out)
    }

    /// The connection ended: whether the body was whole, or the line saying how it was cut.
    package func ended() -> String? {
        if let inflater, !inflater.finished, state == .complete || framing == .close {
            return "the compressed body ended before its compressed stream did"
        }
        switch (framing, state) {
        case (_, .complete), (.close, .open): return nil
        case (.length, _): return "the body ended \(left) bytes short of its length"
        case (.chunked, _): return "the chunked body ended before its last chunk"
        default: return nil
        }
    }

    /// Decoded `content` inflated (within ``inflateStep``) and rid of station blocks, onto `out`.
    private mutating func deliver(_ content: [UInt8], into out: inout [UInt8]) -> State {
        var payload = content
        if let inflater {
            compressed += content
            payload = []
            do throws(Inflater.Failure) {
                let used = try inflater.inflate(compressed, into: &payload, limit: Self.inflateStep)
                compressed.removeFirst(used)
                starved = used == 0 && payload.isEmpty
                if inflater.finished { compressed = [] }
            } catch {
                // What came before the broken data is delivered; nothing after it.
                compressed = []
                state = .malformed("the body's compressed data is not gzip or deflate")
            }
        }
        if icy != nil { icy?.strip(payload, into: &out) } else { out += payload }
        if case .malformed = state { return state }
        return state == .complete && !compressed.isEmpty ? .open : state
    }
}

/// `Transfer-Encoding: chunked` (RFC 9112, 7.1): a hexadecimal size line (extensions ignored),
/// that many bytes, CRLF; a size of 0 ends it, then the trailer lines, then an empty line.
private struct ChunkReader {
    private enum Phase { case size, data(Int64), dataEnd, trailer }
    private var phase = Phase.size
    private var line: [UInt8] = []
    private var trailerBytes = 0

    mutating func read(_ input: inout Slice<UnsafeRawBufferPointer>, into out: inout [UInt8]) -> HTTPBody.State {
        while let byte = input.first {
            switch phase {
            case .data(let left):
                let n = Int(min(Int64(input.count), left))
                out += input.prefix(n)
                input = input.dropFirst(n)
                phase = left - Int64(n) == 0 ? .dataEnd : .data(left - Int64(n))
                continue
            case .dataEnd:
                input = input.dropFirst()
                if byte == UInt8(ascii: "\n") { phase = .size } else if byte != UInt8(ascii: "\r") {
                    return .malformed("a chunk did not end where its size said")
                }
                continue
            case .size, .trailer:
                input = input.dropFirst()
                guard byte == UInt8(ascii: "\n") else {
                    line.append(byte)
                    if case .trailer = phase { trailerBytes += 1 }
                    if line.count > HTTPBody.maxChunkLine || trailerBytes > HTTPBody.maxTrailer {
                        return .malformed("a chunk's size line or the trailer is longer than its budget")
                    }
                    continue
                }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                defer { line.removeAll(keepingCapacity: true) }
                if case .trailer = phase {
                    if line.isEmpty { return .complete }
                    continue
                }
                let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
                // Hexadecimal digits only: Int64(_:radix:) would take a sign ('-E' is -14).
                let hex = digits.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
                guard !digits.isEmpty, digits.count <= 15, hex, let size = Int64(String(decoding: digits, as: UTF8.self), radix: 16) else {
                    return .malformed("a chunk's size is not a hexadecimal number")
                }
                phase = size == 0 ? .trailer : .data(size)
            }
        }
        return .open
    }
}

/// An internet radio station's in-band blocks: after every `interval` payload bytes, one length
/// byte (× 16) and that many bytes of `StreamTitle='…';` text (SHOUTcast's protocol).
private struct ICYBlocks {
    let interval: Int64
    private var audioLeft: Int64
    private var blockLeft = -1   // -1: the length byte comes next (when audioLeft is 0)
    private var block: [UInt8] = []
    private var latest: [UInt8]?

    init(interval: Int64) {
        self.interval = interval
        audioLeft = interval
    }

    mutating func take() -> [UInt8]? {
        defer { latest = nil }
        return latest
    }

    mutating func strip(_ bytes: [UInt8], into out: inout [UInt8]) {
        var input = bytes[...]
        while !input.isEmpty {
            if audioLeft > 0 {
                let n = Int(min(Int64(input.count), audioLeft))
                out += input.prefix(n)
                input = input.dropFirst(n)
                audioLeft -= Int64(n)
            } else if blockLeft < 0 {
                blockLeft = Int(input.removeFirst()) * 16
                block.removeAll(keepingCapacity: true)
                if blockLeft == 0 { finish() }
            } else {
                let n = min(input.count, blockLeft)
                block += input.prefix(n)
                input = input.dropFirst(n)
                blockLeft -= n
                if blockLeft == 0 { finish() }
            }
        }
    }

    private mutating func finish() {
        if !block.isEmpty { latest = Array(block.prefix { $0 != 0 }) }
        blockLeft = -1
        audioLeft = interval
    }
}

/// zlib's inflater for a `gzip` or `deflate` body (the header says which: window bits 15 + 32);
/// owns its `z_stream` and ends it exactly once.
private final class Inflater {
    struct Failure: Error {}
    private var stream = z_stream()
    private let ready: Bool
    private(set) var finished = false

    init() {
        ready = inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit { if ready { inflateEnd(&stream) } }

    /// Inflates from `input` onto `out`, at most `limit` bytes; returns the input bytes used.
    func inflate(_ input: [UInt8], into out: inout [UInt8], limit: Int) throws(Failure) -> Int {
        guard ready else { throw Failure() }
        guard !finished, !input.isEmpty else { return input.count }
        var piece = [UInt8](repeating: 0, count: min(limit, 64 << 10))
        var used = 0
        var produced = 0
        while used < input.count, produced < limit, !finished {
            let consumed = used
            let status: Int32 = input.withUnsafeBufferPointer { inBuf in
                piece.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress! + used)
                    stream.avail_in = UInt32(input.count - used)
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(min(outBuf.count, limit - produced))
                    let before = stream.avail_in
                    let s = CZlib.inflate(&stream, Z_NO_FLUSH)
                    used += Int(before - stream.avail_in)
                    return s
                }
            }
            let n = min(piece.count, limit - produced) - Int(stream.avail_out)
            out += piece.prefix(n)
            produced += n
            if status == Z_STREAM_END { finished = true } else if status != Z_OK && status != Z_BUF_ERROR { throw Failure() }
            // No progress (zlib wants more input than there is): the next feed brings it.
            if n == 0 && (status == Z_BUF_ERROR || used == consumed) { break }
        }
        return finished ? input.count : used
    }
}
