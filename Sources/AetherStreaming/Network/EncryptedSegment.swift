import AetherBase
import AetherMedia
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// An HLS segment encrypted with AES-128, as libavformat's HLS demuxer asks for it:
/// `crypto+https://…`, with its `key` and `iv` in hex among the open's options. It is fetched
/// whole through the source's transport (a byte range too: `offset`, `end_offset`), decrypted
/// (``AES128Decryptor``) and served from memory, so none of it goes through libavformat's own
/// `crypto` and `http` (a connection each, asked to close).
enum EncryptedSegment {
    /// Opens `url` (`crypto+http…`) for the demuxer into `pb`: 0 or an AVERROR.
    static func open(_ url: String, options: [String: String], session: NetworkSession,
                     into pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        let plain = String(url.dropFirst("crypto+".count))
        var options = options
        guard let key = options.removeValue(forKey: "key").flatMap(HexText.bytes),
              let iv = options.removeValue(forKey: "iv").flatMap(HexText.bytes) else {
            AppLog.write("net", "\(TextSanitizer.clean(plain)): an encrypted segment without its key or IV")
            return aether_AVERROR(EINVAL)
        }
        let cipher: [UInt8]
        do throws(FFmpegError) {
            cipher = try session.readWhole(plain, options: options, limit: NetworkSession.wholeSegmentLimit)
        } catch {
            return error.code
        }
        let decrypted: Result<[UInt8], AES128Decryptor.Failure> = Result { () throws(AES128Decryptor.Failure) in
            try AES128Decryptor(key: key).decrypt(cipher, iv: iv)
        }
        switch decrypted {
        case .success(let bytes):
            do { return try session.serve(bytes, into: pb) } catch { return error.code }
        case .failure(let why):
            AppLog.write("net", "\(TextSanitizer.clean(plain)): \(why.message)")
            return aether_AVERROR_INVALIDDATA()
        }
    }
}
