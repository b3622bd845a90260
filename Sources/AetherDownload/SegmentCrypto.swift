import AetherMedia
import CFFmpeg

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
