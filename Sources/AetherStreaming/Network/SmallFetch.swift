import AetherBase
import AetherMedia
import AetherTransport
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads a small text resource (a playlist) with the source's options: a local path, or a URL
/// through the source's transport (``NetworkSession/readWhole(_:options:limit:length:carryOn:)``:
/// headers, deadline, retries). Every read is bounded by `limit` bytes (after any decompression).
package enum SmallFetch {
    package static func text(_ url: String, options: [String: String], settings: NetworkSettings, interrupt: InterruptToken,
                     timeout: Double, limit: Int = 1 << 20, transport: TransportSession? = nil) -> String? {
        let data: [UInt8]? = try? bytes(url, options: options, settings: settings, interrupt: interrupt, timeout: timeout, limit: limit,
                                        transport: transport)
        return data.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The resource's bytes; throws FFmpeg's words when it cannot be read, or one line (code
    /// `EFBIG`) when it is larger than `limit`.
    /// `range`: only these bytes of the resource (a network URL's: a DASH index). `transport`:
    /// the connections to fetch on (an open's, or a switcher's; nil: a session of its own).
    package static func bytes(_ url: String, options: [String: String], settings: NetworkSettings, interrupt: InterruptToken,
                      timeout: Double, limit: Int, range: DASHManifest.ByteRange? = nil,
                      transport: TransportSession? = nil) throws(FFmpegError) -> [UInt8] {
        let limit = max(0, min(limit, 1 << 30))
        if let path = NetworkSettings.localPath(url) {
            switch FileBytes.read(path: path, limit: limit, regularOnly: true) {
            case .success(let bytes): return bytes
            case .failure(.overLimit): throw NetworkSession.tooLarge(limit)
            case .failure(.system(let code)): throw FFmpegError(code: aether_AVERROR(code), function: "read")
            case .failure(.notARegularFile): throw FFmpegError(code: aether_AVERROR(EIO), function: "read")
            }
        }
        guard NetworkSettings.isNetwork(url) else { throw FFmpegError(code: aether_AVERROR(EPERM), function: "open") }
        let session = NetworkSession(settings: settings, interrupt: interrupt, options: options, failsSource: false, transport: transport)
        interrupt.arm(seconds: timeout)
        defer { interrupt.arm(seconds: nil) }
        var requestOptions = session.options
        if let range {
            requestOptions["offset"] = String(range.offset)
            requestOptions["end_offset"] = String(range.offset + range.length)
        }
        do { return try session.readWhole(url, options: requestOptions, limit: limit) } catch {
            if error == NetworkSession.tooLarge(limit) { throw error }
            throw refused(session) ?? error
        }
    }

    /// The whole of a small binary resource (a thumbnail sheet), the same way; nil when it cannot
    /// be read, is empty, or is larger than `limit` bytes.
    package static func nonEmptyBytes(_ url: String, options: [String: String], settings: NetworkSettings, interrupt: InterruptToken,
                              timeout: Double, limit: Int) -> [UInt8]? {
        let data: [UInt8]? = try? bytes(url, options: options, settings: settings, interrupt: interrupt, timeout: timeout, limit: limit)
        guard let data, !data.isEmpty else { return nil }
        return data
    }

    /// The session's refusal as an error (a budget's as ``NetworkSession/tooLarge(_:)``), nil when none.
    private static func refused(_ session: NetworkSession) -> FFmpegError? {
        guard let why = session.refusal, let code = session.refusalCode else { return nil }
        if code == aether_AVERROR(EFBIG) { return NetworkSession.tooLarge(Int(NetworkSession.manifestBudget)) }
        return FFmpegError(function: "open", message: why, code: code)
    }
}
