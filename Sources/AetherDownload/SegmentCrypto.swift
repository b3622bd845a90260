import AetherMedia
import CFFmpeg

/// AES-128-CBC decryption of one HLS segment (`EXT-X-KEY:METHOD=AES-128`, PKCS#7 padding)
/// through libavutil's `av_aes`, not our own cipher. Owns the `AVAES` context and frees it once.
final class AES128Decryptor {
    private let context: OpaquePointer

    /// The corresponding C functions are `av_aes_alloc` and `av_aes_init`.
    init(key: [UInt8]) throws(DownloadError) {
        guard key.count == 16 else { throw DownloadError("an AES-128 key is 16 bytes, the server sent \(key.count)") }
        guard let made = av_aes_alloc() else { throw DownloadError("out of memory (av_aes_alloc)") }
        context = made
        // Initialised: a throw from here on runs deinit, which frees the context.
        guard av_aes_init(context, key, 128, 1) == 0 else { throw DownloadError("av_aes_init refused the key") }
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    /// The plaintext of `data` with `iv`, padding removed; throws when the length is not whole
    /// blocks or the padding is not PKCS#7 (a wrong key or IV, or a cut segment).
    func decrypt(_ data: [UInt8], iv: [UInt8]) throws(DownloadError) -> [UInt8] {
        guard iv.count == 16 else { throw DownloadError("an AES-128 IV is 16 bytes") }
        guard !data.isEmpty, data.count % 16 == 0 else {
            throw DownloadError("an encrypted segment of \(data.count) bytes is not whole 16-byte blocks")
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
            throw DownloadError("a segment did not decrypt (bad padding: wrong key or IV)")
        }
        out.removeLast(pad)
        return out
    }

    /// The IV when the key gives none: the media sequence number, big-endian in 16 bytes.
    static func sequenceIV(_ sequence: Int) -> [UInt8] {
        var iv = [UInt8](repeating: 0, count: 16)
        var n = UInt64(truncatingIfNeeded: sequence)
        for i in stride(from: 15, through: 8, by: -1) {
            iv[i] = UInt8(n & 0xFF)
            n >>= 8
        }
        return iv
    }
}

/// SHA-256 through libavutil's `av_sha` (the state file's checksums and the plan fingerprint).
/// Owns the `AVSHA` context and frees it once.
final class SHA256 {
    private let context: OpaquePointer

    init() {
        // av_sha_alloc fails only when malloc does; then there is nothing to do but stop.
        guard let made = av_sha_alloc() else { fatalError("av_sha_alloc: out of memory") }
        context = made
        av_sha_init(context, 256)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        return digest
    }

    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        let sha = SHA256()
        bytes.withUnsafeBytes { sha.update($0) }
        return sha.finish()
    }

}
