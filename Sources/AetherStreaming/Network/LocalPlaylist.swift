import AetherBase
import AetherMedia
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A local HLS playlist (an `.m3u8` file) played through a ``NetworkSession``, because the
/// segments it names may be remote: libavformat's http is on no whitelist (issue 59), so those
/// come through the transport, while the local ones are opened from their files (the session's
/// nested open, with libavformat's file protocol alone). The playlist
/// itself is read whole within ``NetworkSession/manifestBudget`` (a regular file only) and
/// served from memory, as a remote one is.
enum LocalPlaylist {
    /// Whether `url` is a local HLS playlist.
    static func holds(_ url: String) -> Bool {
        NetworkSettings.localPath(url) != nil && StreamVariants.isHLS(url)
    }

    /// The playlist's bytes.
    static func read(_ url: String) throws(FFmpegError) -> [UInt8] {
        guard let path = NetworkSettings.localPath(url) else { throw FFmpegError(code: aether_AVERROR(EINVAL), function: "open") }
        switch FileBytes.read(path: path, limit: Int(NetworkSession.manifestBudget), regularOnly: true) {
        case .success(let bytes): return bytes
        case .failure(.overLimit): throw NetworkSession.tooLarge(Int(NetworkSession.manifestBudget))
        case .failure(.system(let code)): throw FFmpegError(code: aether_AVERROR(code), function: "open")
        case .failure(.notARegularFile): throw FFmpegError(code: aether_AVERROR(EINVAL), function: "open")
        }
    }
}
