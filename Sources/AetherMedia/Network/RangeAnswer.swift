import AetherBase
import AetherTransport

/// What an answer's head says of the bytes asked for (RFC 9110, 14.4 and 15.3.7): whether the
/// body starts at the byte the request named, and the whole resource's length where the answer
/// gives it. The check a resumed read stands on: a server that ignores `Range` (200) is read
/// from its start, one that answers another byte (a 206 whose `Content-Range` starts elsewhere)
/// is refused. Pure: made from the head alone (its fields within ``HTTPResponseHead``'s budgets).
package struct RangeAnswer: Equatable, Sendable {
    package enum Start: Equatable, Sendable {
        /// The body starts at the byte asked for (or no byte was asked for).
        case asked
        /// The server sent the whole resource (200) to a request from byte `offset` > 0.
        case resourceStart
        /// A 206 whose first byte is not the one asked for.
        case otherByte(Int64)
    }

    package let start: Start
    /// The resource's whole length: a 206's `Content-Range` total (nil for `*`), or a 200's
    /// `Content-Length` when no transfer or content coding stands between it and the payload.
    package let total: Int64?
    /// Whether the server serves byte ranges (a 206, or `Accept-Ranges: bytes`).
    package let servesRanges: Bool
}

extension RangeAnswer {
    /// `offset`: the byte the request asked for (`Range: bytes=offset-`; nil: no `Range`, the
    /// resource from its start).
    package init(_ head: HTTPResponseHead, asked offset: Int64?) {
        let range = head.status == 206 ? Self.contentRange(head.value("content-range")) : nil
        if let range, range.start != (offset ?? 0) {
            start = .otherByte(range.start)
        } else if let offset, offset > 0, head.status == 200 {
            start = .resourceStart
        } else {
            start = .asked
        }
        servesRanges = head.status == 206 || head.value("accept-ranges")?.lowercased() == "bytes"
        if head.status == 206 {
            total = range?.total
        } else {
            let coding = head.value("content-encoding")?.lowercased() ?? ""
            if head.value("transfer-encoding") == nil, coding.isEmpty || coding == "identity",
               let text = head.value("content-length"), let n = Int64(text), n >= 0 {
                total = n
            } else {
                total = nil
            }
        }
    }

    /// `bytes S-E/T`: its first byte and the total (nil: `*`); nil when it is not that form.
    static func contentRange(_ field: String?) -> (start: Int64, total: Int64?)? {
        guard let text = field?.lowercased(), text.hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"), dash < slash,
              let start = Int64(spec[..<dash].trimmingWhitespace()), start >= 0 else { return nil }
        let total = Int64(spec[spec.index(after: slash)...].trimmingWhitespace())
        return (start, total.flatMap { $0 > start ? $0 : nil })
    }
}
