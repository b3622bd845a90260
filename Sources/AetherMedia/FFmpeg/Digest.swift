import CFFmpeg

/// Message digests of bytes, computed by libavutil (the one place outside FFmpeg's own objects
/// that needs one: mpv-compatible watch-later file names).
public enum Digest {
    /// The 16-byte MD5 of `bytes` (`av_md5_sum`).
    public static func md5(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeBufferPointer { b in av_md5_sum(&digest, b.baseAddress, b.count) }
        return digest
    }
}
