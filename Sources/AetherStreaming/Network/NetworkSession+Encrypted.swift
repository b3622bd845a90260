import AetherBase
import AetherMedia
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

extension NetworkSession {
    /// An HLS segment encrypted with AES-128, which libavformat's HLS demuxer asks for as
    /// `crypto+https://…` with its `key` and `iv` in hex: fetched whole through the transport (a
    /// byte range too: `offset`, `end_offset`), decrypted (``AES128Decryptor``) and served from
    /// memory, so none of it goes through libavformat's own http. 0 or an AVERROR.
    func openDecrypted(_ url: String, options: [String: String],
                               into pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        var options = options
        guard let key = options.removeValue(forKey: "key").flatMap(HexText.bytes),
              let iv = options.removeValue(forKey: "iv").flatMap(HexText.bytes) else {
            AppLog.write("net", "\(TextSanitizer.clean(url)): an encrypted segment without its key or IV")
            return aether_AVERROR(EINVAL)
        }
        let cipher: [UInt8]
        do throws(FFmpegError) { cipher = try readWhole(url, options: options, limit: Self.wholeSegmentLimit) } catch { return error.code }
        let plain: Result<[UInt8], AES128Decryptor.Failure> = Result { () throws(AES128Decryptor.Failure) in
            try AES128Decryptor(key: key).decrypt(cipher, iv: iv)
        }
        switch plain {
        case .success(let bytes):
            do { return try serve(bytes, into: pb) } catch { return error.code }
        case .failure(let why):
            AppLog.write("net", "\(TextSanitizer.clean(url)): \(why.message)")
            return aether_AVERROR_INVALIDDATA()
        }
    }
}
