import Foundation

/// A reader of kitty graphics output written for the tests: splits a byte stream into APC `G`
/// strings, checks the chunking rules, joins and decodes the payloads, and gives back the pixels
/// exactly as the terminal would receive them.
enum KittyStream {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// One APC `G` string.
    struct Chunk {
        var keys: [String: String]
        var payload: String
    }

    /// A complete transmission (first chunk to the one with `m=0`).
    struct Transmission {
        /// The first chunk's keys.
        var keys: [String: String]
        var chunks: [Chunk]
        var width: Int
        var height: Int
        /// 24 or 32.
        var format: Int
        /// Decoded pixel bytes (RGB or RGBA, rows packed).
        var pixels: [UInt8]

        func int(_ key: String) -> Int? { keys[key].flatMap { Int($0) } }
    }

    struct Parsed {
        var transmissions: [Transmission] = []
        /// Keys of every `a=d` command.
        var deletes: [[String: String]] = []
        /// Everything outside APC strings (cursor moves).
        var other: [UInt8] = []
        /// Every chunk in order (for size checks).
        var chunks: [Chunk] = []
    }

    /// Parses `bytes`; throws on any breach of the protocol rules the encoder promises.
    static func parse(_ bytes: [UInt8]) throws -> Parsed {
        var result = Parsed()
        var open: [Chunk] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "_"), bytes[i + 2] == UInt8(ascii: "G") else {
                result.other.append(bytes[i])
                i += 1
                continue
            }
            var j = i + 3
            while j + 1 < bytes.count, !(bytes[j] == 0x1B && bytes[j + 1] == UInt8(ascii: "\\")) {
                guard bytes[j] != 0x1B else { throw Failure("ESC inside an APC string at \(j)") }
                j += 1
            }
            guard j + 1 < bytes.count else { throw Failure("unterminated APC string at \(i)") }
            let body = String(decoding: bytes[(i + 3)..<j], as: UTF8.self)
            i = j + 2
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            var keys: [String: String] = [:]
            for pair in parts[0].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard kv.count == 2 else { throw Failure("bad key \(pair)") }
                guard keys[String(kv[0])] == nil else { throw Failure("key \(kv[0]) twice") }
                keys[String(kv[0])] = String(kv[1])
            }
            let chunk = Chunk(keys: keys, payload: parts.count > 1 ? String(parts[1]) : "")
            result.chunks.append(chunk)
            if keys["a"] == "d" {
                guard open.isEmpty else { throw Failure("delete inside a transmission") }
                result.deletes.append(keys)
                continue
            }
            guard chunk.payload.utf8.count <= 4096 else { throw Failure("chunk of \(chunk.payload.utf8.count) bytes") }
            if open.isEmpty {
                for key in ["a", "f", "s", "v", "i", "m"] where keys[key] == nil { throw Failure("first chunk lacks \(key)") }
            } else {
                guard Set(keys.keys).isSubset(of: ["m", "q"]) else { throw Failure("continuation chunk has keys \(keys.keys.sorted())") }
            }
            open.append(chunk)
            switch keys["m"] {
            case "1":
                guard chunk.payload.utf8.count % 4 == 0 else { throw Failure("non-final chunk of \(chunk.payload.utf8.count) bytes") }
            case "0":
                result.transmissions.append(try finish(open))
                open = []
            default:
                throw Failure("m=\(keys["m"] ?? "-")")
            }
        }
        guard open.isEmpty else { throw Failure("transmission without m=0") }
        return result
    }

    private static func finish(_ chunks: [Chunk]) throws -> Transmission {
        let keys = chunks[0].keys
        guard let w = keys["s"].flatMap({ Int($0) }), let h = keys["v"].flatMap({ Int($0) }),
              let f = keys["f"].flatMap({ Int($0) }), f == 24 || f == 32 else { throw Failure("bad s/v/f \(keys)") }
        let joined = chunks.map(\.payload).joined()
        guard let data = Data(base64Encoded: joined) else { throw Failure("payload is not base64") }
        guard data.count == w * h * f / 8 else { throw Failure("\(data.count) bytes for \(w)x\(h) f=\(f)") }
        return Transmission(keys: keys, chunks: chunks, width: w, height: h, format: f, pixels: Array(data))
    }

    /// Undoes tmux's passthrough: the contents of every `ESC P tmux; … ESC \` with doubled ESCs
    /// made single; bytes outside wraps are kept. With `keepInner` false, only the bytes outside
    /// the wraps (what tmux itself sees).
    static func unwrapTmux(_ bytes: [UInt8], keepInner: Bool = true) throws -> [UInt8] {
        let opening = Array("\u{1B}Ptmux;".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i...].starts(with: opening) else {
                out.append(bytes[i])
                i += 1
                continue
            }
            i += opening.count
            while true {
                guard i + 1 < bytes.count else { throw Failure("unterminated tmux wrap") }
                if bytes[i] == 0x1B {
                    if bytes[i + 1] == 0x1B {
                        if keepInner { out.append(0x1B) }
                        i += 2
                        continue
                    }
                    guard bytes[i + 1] == UInt8(ascii: "\\") else { throw Failure("single ESC inside a tmux wrap at \(i)") }
                    i += 2
                    break
                }
                if keepInner { out.append(bytes[i]) }
                i += 1
            }
        }
        return out
    }
}
