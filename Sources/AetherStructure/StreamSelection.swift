import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What a stream carries, as libavformat's `AVMediaType` says.
public enum StreamKind: String, Codable, Sendable, CaseIterable {
    case video, audio, subtitle, data, attachment, unknown

    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
        default: self = .unknown
        }
    }

    /// The letter of ffprobe's stream specifiers (`v`, `a`, `s`, `d`, `t`).
    public var letter: Character? {
        switch self {
        case .video: return "v"
        case .audio: return "a"
        case .subtitle: return "s"
        case .data: return "d"
        case .attachment: return "t"
        case .unknown: return nil
        }
    }
}

/// Which streams an inspection reads: a comma-separated list in ffprobe's `-select_streams`
/// spelling. Each item is a stream index (`0`, `2`), a kind (`v`, `a`, `s`, `d`, `t`: every stream
/// of it), or the Nth stream of a kind counting from 0 (`a:1`, the second audio stream).
/// No items means every stream.
public struct StreamSelection: Sendable, Equatable, CustomStringConvertible {
    public enum Item: Sendable, Equatable {
        case index(Int)
        case kind(StreamKind)
        case nth(StreamKind, Int)
    }

    public let items: [Item]

    public static let all = StreamSelection(items: [])

    public init(items: [Item]) { self.items = items }

    /// Parses `0,1`, `v`, `a:1,s` …; nil when any item is malformed.
    public init?(_ text: String) {
        var items: [Item] = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            let part = raw.trimmingWhitespace()
            if let n = Int(part), n >= 0 {
                items.append(.index(n))
                continue
            }
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(pieces.count), pieces[0].count == 1,
                  let kind = StreamKind.allCases.first(where: { $0.letter == pieces[0].first }) else { return nil }
            if pieces.count == 1 {
                items.append(.kind(kind))
            } else {
                guard let n = Int(pieces[1]), n >= 0 else { return nil }
                items.append(.nth(kind, n))
            }
        }
        guard !items.isEmpty else { return nil }
        self.items = items
    }

    public var isAll: Bool { items.isEmpty }

    public var description: String {
        if items.isEmpty { return "all" }
        return items.map { item in
            switch item {
            case .index(let n): return String(n)
            case .kind(let k): return String(k.letter ?? "?")
            case .nth(let k, let n): return "\(k.letter ?? "?"):\(n)"
            }
        }.joined(separator: ",")
    }

    /// The stream indices this selection names among streams of `kinds` (index = position).
    /// An item that matches no stream is an error: the user asked for something the file lacks.
    public func resolve(kinds: [StreamKind]) throws(InspectionError) -> Set<Int> {
        var chosen: Set<Int> = []
        for item in items {
            switch item {
            case .index(let n):
                guard n < kinds.count else {
                    throw .noSuchStream("no stream \(n): " + StreamSelection.streamCount(kinds.count))
                }
                chosen.insert(n)
            case .kind(let kind):
                let matches = kinds.indices.filter { kinds[$0] == kind }
                guard !matches.isEmpty else { throw .noSuchStream("no \(kind.rawValue) stream in the file") }
                chosen.formUnion(matches)
            case .nth(let kind, let n):
                let matches = kinds.indices.filter { kinds[$0] == kind }
                guard n < matches.count else {
                    throw .noSuchStream("no stream \(kind.letter.map(String.init) ?? "?"):\(n): the file has "
                                        + "\(matches.count) \(kind.rawValue) stream\(matches.count == 1 ? "" : "s")")
                }
                chosen.insert(matches[n])
            }
        }
        return chosen
    }

    private static func streamCount(_ n: Int) -> String {
        switch n {
        case 0: return "the file has no streams"
        case 1: return "the file has 1 stream (0)"
        default: return "the file has \(n) streams (0–\(n - 1))"
        }
    }
}
