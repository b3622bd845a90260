import AetherBase
import AetherTransport
import CZlib

/// The payload of an HTTP answer's body as libcurl delivers it (its framing, a length or
/// chunks, undone already: ``HTTPTransfer``): a `gzip` or `deflate` coding inflated, and an
/// internet radio station's in-band title blocks (`icy-metaint`) taken out. Pure: fed bytes, it
/// appends the payload; one feed inflates to at most ``inflateStep`` bytes (the rest stays, for
/// the next feed), so a compressed bomb costs what its reader's budget allows. A body with
/// neither (``passesThrough``) is the payload as it is, and its reader skips this.
///
/// Fed from one thread (the connection's reader).
package struct HTTPBody {
    /// What a feed found.
    package enum State: Equatable, Sendable {
        /// More may come.
        case open
        /// The compressed data is broken (one line naming it).
        case malformed(String)
    }

    /// The payload one feed inflates to, at most.
    package static let inflateStep = 256 << 10

    private var state = State.open
    private let inflater: Inflater?
    /// Compressed bytes read off the connection and not yet inflated.
    private var compressed: [UInt8] = []
    /// The last inflate made nothing of ``compressed``: it needs more bytes first.
    private var starved = false
    private var icy: ICYBlocks?

    /// `coding`: the `Content-Encoding` (lower case; `gzip`, `x-gzip` and `deflate` are
    /// inflated, anything else is passed as it is); `metaint`: a station's `icy-metaint` (a block
    /// after every `metaint` payload bytes; nil or 0: none).
    package init(coding: String = "", metaint: Int64? = nil) {
        inflater = ["gzip", "x-gzip", "deflate"].contains(coding) ? Inflater() : nil
        if let metaint, metaint > 0 { icy = ICYBlocks(interval: metaint) }
    }

    /// The body of a 2xx answer with `head`: its content coding inflated, and with `icy` (the
    /// request asked for a station's title blocks, `Icy-MetaData: 1`) `icy-metaint` read.
    package init(answer head: HTTPResponseHead, icy: Bool) {
        self.init(coding: head.value("content-encoding")?.lowercased() ?? "",
                  metaint: icy ? head.value("icy-metaint").flatMap { Int64($0) } : nil)
    }

    /// Whether the payload is the body's bytes as they come (no coding to inflate, no station
    /// blocks to take out): its reader may hand them on without a feed.
    package var passesThrough: Bool { inflater == nil && icy == nil }
    /// Whether inflated payload is waiting (a feed of no bytes gives more of it); not when what
    /// is left to inflate needs more bytes first.
    package var hasPending: Bool { !compressed.isEmpty && !starved }

    /// The latest in-band title block not taken yet (its bytes up to the first NUL).
    package mutating func takeStationBlock() -> [UInt8]? { icy?.take() }

    /// Reads `bytes` (off the connection) and appends what they carry of the payload to `out`.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) -> State {
        guard state == .open else { return state }
        guard let inflater else {
            if icy != nil { icy?.strip(bytes, into: &out) } else { out += bytes }
            return state
        }
        compressed += bytes
        var payload: [UInt8] = []
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
        if icy != nil { payload.withUnsafeBytes { icy?.strip($0, into: &out) } } else { out += payload }
        return state
    }

    /// The transfer ended whole: nil when the payload is whole too, or the line saying how it
    /// was cut (a compressed stream that had not ended).
    package func ended() -> String? {
        if let inflater, !inflater.finished { return "the compressed body ended before its compressed stream did" }
        return nil
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

    mutating func strip(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
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
