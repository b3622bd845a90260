import AetherMedia
import CFFmpeg

/// AES-128-CBC decryption of one HLS segment (`EXT-X-KEY:METHOD=AES-128`, PKCS#7 padding)
/// through libavutil's `av_aes`, not our own cipher: the downloader's, and playback's (a
/// segment libavformat asks for as `crypto+https://…` is fetched through the transport and
/// decrypted here). Owns the `AVAES` context and frees it once.
package final class AES128Decryptor {
    /// Why a key or a segment was refused (one line).
    package struct Failure: Error, Equatable {
        package let message: String
        init(_ message: String) { self.message = message }
    }

    private let context: OpaquePointer

    /// The corresponding C functions are `av_aes_alloc` and `av_aes_init`.
    package init(key: [UInt8]) throws(Failure) {
        guard key.count == 16 else { throw Failure("an AES-128 key is 16 bytes, the server sent \(key.count)") }
        guard let made = av_aes_alloc() else { throw Failure("out of memory (av_aes_alloc)") }
        context = made
        // Initialised: a throw from here on runs deinit, which frees the context.
        guard av_aes_init(context, key, 128, 1) == 0 else { throw Failure("av_aes_init refused the key") }
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    /// The plaintext of `data` with `iv`, padding removed; throws when the length is not whole
    /// blocks or the padding is not PKCS#7 (a wrong key or IV, or a cut segment).
    package func decrypt(_ data: [UInt8], iv: [UInt8]) throws(Failure) -> [UInt8] {
        guard iv.count == 16 else { throw Failure("an AES-128 IV is 16 bytes") }
        guard !data.isEmpty, data.count % 16 == 0 else {
            throw Failure("an encrypted segment of \(data.count) bytes is not whole 16-byte blocks")
        }
        var out = [UInt8](repeating: 0, count: data.count)
        var chain = iv
        out.withUnsafeMutableBufferPointer { dst in
            data.withUnsafeBufferPointer { src in
                av_aes_crypt(context, dst.baseAddress, src.baseAddress, Int32(data.count / 16), &chain, 1)
            }
        }
        let pad = Int(out[out.count - 1])
        guard (1...16).contains(pad), out.suffix(pad).allSatisfy({ Int($0) == pad }) else {
            throw Failure("a segment did not decrypt (bad padding: wrong key or IV)")
        }
        out.removeLast(pad)
        return out
    }

    /// The IV when the key gives none: the media sequence number, big-endian in 16 bytes.
    package static func sequenceIV(_ sequence: Int) -> [UInt8] {
        var iv = [UInt8](repeating: 0, count: 16)
        var n = UInt64(truncatingIfNeeded: sequence)
        for i in stride(from: 15, through: 8, by: -1) {
            iv[i] = UInt8(n & 0xFF)
            n >>= 8
        }
        return iv
    }
}
