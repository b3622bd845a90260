import AetherBase
import AetherMedia
import AetherStreaming
import AetherTransport
import AetherSubtitles
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A kind of source read ahead of libavformat (an HLS master, a DASH manifest). ``SourceOpener``
/// asks each of its ``SourceOpener/kinds`` in turn, as the output drivers are chosen from their
/// registry: the first that claims the URL decides what libavformat opens (``DemuxTarget``) and
/// adds what it knows that libavformat does not. A URL no kind claims (a file, a pipe, a plain
/// stream, a web page) opens as it is.
protocol SourceKind {
    /// Reads the URL ahead when it names this kind; nil when it does not, or when what it names
    /// cannot be read or is no such document (libavformat then opens the URL as it is and says
    /// why it cannot). Throws a refusal (over a budget, a foreign reference).
    init?(_ request: OpenRequest) throws(PlayerError)
    var target: DemuxTarget { get }
    /// After the probe: what the kind knows better than libavformat (the container, chapters).
    func refine(_ info: inout MediaInfo)
    /// Subtitle tracks of its own, which libavformat does not read.
    func addText(to subtitles: SubtitleStore)
}

extension SourceKind {
    func refine(_ info: inout MediaInfo) {}
    func addText(to subtitles: SubtitleStore) {}
}

/// What libavformat opens, as a ``SourceKind`` decided.
struct DemuxTarget {
    /// The URL libavformat opens (a variant's media playlist, our translation's master).
    var url: String
    /// The name errors give the source (nil: ``url``).
    var name: String?
    /// The variants and the one chosen, and bit-rate switching between them.
    var variants: [StreamVariant] = []
    var variant: StreamVariant?
    var switcher: AdaptiveSwitcher?
    /// Playlists served from memory and segments served transmuxed (our DASH reader).
    var documents: (@Sendable (String) -> [UInt8]?)?
    var transmuxed: (@Sendable (String) -> DASHPlaylists.Fetch?)?
    /// Options of libavformat's demuxer besides the source's own.
    var demuxOptions: [String: String] = [:]
    /// Later periods change the video or audio codec (``OpenedSource/Adaptive/changesCodec``).
    var changesCodec = false
    /// Problems met reading ahead that do not stop playback.
    var warnings: [String] = []
}

/// What is being opened and how: the URL, the player's options and the source options made of
/// them (headers, protocol whitelist), the open's interrupt, and the documents read ahead that
/// the demuxer's first open of them is served (no playlist is fetched twice at open).
struct OpenRequest {
    let url: String
    let options: PlayerOptions
    let openOptions: [String: String]
    let interrupt: InterruptToken
    let prefetched = PrefetchedDocuments()
    /// The open's connections: what it reads ahead and what the demuxer then reads share them
    /// (a playlist and its segments from one host on one connection; HTTP/2 streams of one).
    let transport: TransportSession

    /// A playlist or manifest read ahead of libavformat, within ``NetworkSession/manifestBudget``:
    /// nil when it cannot be read (libavformat's own open then says why); throws when it is over
    /// the budget.
    func prefetch(_ url: String, what: String) throws(PlayerError) -> [UInt8]? {
        let timeout = options.opening.timeout
        do {
            return try SmallFetch.bytes(url, options: openOptions, settings: options.network, interrupt: interrupt,
                                        timeout: timeout, limit: Int(NetworkSession.manifestBudget), transport: transport)
        } catch where error.code == aether_AVERROR(EFBIG) {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(what) \(error.message)")
        } catch where error.code == aether_AVERROR_EXIT() && !interrupt.isCancelled {
            // The open deadline passed (a server that drips): libavformat would wait as long again.
            let line = "the \(what) did not arrive within \(String(cFormat: "%g", timeout)) s"
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(line)", cause: .network(NetworkFailure(.timedOut, url: url, line: line)))
        } catch {
            return nil
        }
    }
}
