import CFFmpeg

/// The network layer under a format context: it hooks libavformat's nested opens (playlists,
/// segments, keys) and serves the main input, and says why a transfer gave up.
///
/// The media core owns this contract so that ``FormatContext`` stays the one owner of every
/// `AVFormatContext` without knowing HTTP, HLS or DASH; AetherStreaming's `NetworkSession` is
/// its one implementation, and AetherStreaming's `FormatContext` initialisers (those taking
/// `network:`) are the ones that make it.
package protocol NetworkTransport: AnyObject {
    /// Installs the `io_open`/`io_close` hooks on `ctx` (before `avformat_open_input`).
    func install(on ctx: UnsafeMutablePointer<AVFormatContext>)
    /// Opens the source itself; `owner` keeps the I/O context's reader alive (freed after the
    /// demuxer that reads it); `demuxerOptions`: what the answer asks of the demuxer's open
    /// (``LiveAudioProbe``), under the caller's own options.
    func openMain(url: String) throws(FFmpegError) -> (owner: AnyObject, context: UnsafeMutablePointer<AVIOContext>,
                                                       demuxerOptions: [String: String])
    /// Why the source failed: a reader's refusal or a transfer that gave up (nil: neither).
    var failure: String? { get }
    /// ``failure`` with its cause.
    var networkFailure: NetworkFailure? { get }
    /// A reader's refusal (a playlist over its budget, a 4xx), nil when there was none.
    var refusal: String? { get }
    /// What the network is doing for this source.
    var status: NetworkStatus { get }
}
