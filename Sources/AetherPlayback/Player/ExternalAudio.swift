import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An audio file played with the main source's picture (mpv's `--audio-file`): its own demuxer,
/// opened with the main source's rules (protocol whitelist, headers, deadlines), whose audio
/// streams are listed after the source's own in `MediaInfo.audio` under engine stream indexes
/// of their own (``indexBase`` + file × ``indexStride`` + stream), so no index of the main
/// demuxer is ever taken for one of them. The session owns it (and so frees the demuxer once,
/// after its threads); the audio-file thread alone reads it (``AudioFileReader``).
final class ExternalAudio: @unchecked Sendable {  // the demuxer is the audio-file thread's once playing
    static let indexBase = 1 << 20
    static let indexStride = 1 << 10
    /// How many `--audio-file`s one load takes.
    static let maxFiles = 16

    let format: FormatContext
    /// Position among the `--audio-file`s.
    let number: Int
    /// Its audio streams as tracks (engine indexes, titled, marked external).
    let tracks: [AudioStreamInfo]

    private init(format: FormatContext, number: Int, tracks: [AudioStreamInfo]) {
        self.format = format
        self.number = number
        self.tracks = tracks
    }

    /// Whether engine stream `index` is one of this file's.
    func owns(_ index: Int) -> Bool { local(index) != nil }

    /// The demuxer's stream index of engine stream `index` (nil: not this file's).
    func local(_ index: Int) -> Int? {
        let base = Self.indexBase + number * Self.indexStride
        guard index >= base, index < base + Self.indexStride else { return nil }
        return index - base
    }

    static func isExternal(_ index: Int?) -> Bool { (index ?? 0) >= indexBase }

    /// Opens and probes `url` as audio file `number`; throws a one-line ``PlayerError`` when it
    /// cannot be opened or has no audio stream.
    static func open(_ url: String, number: Int, openOptions: [String: String], options: PlayerOptions) throws -> ExternalAudio {
        let name = TextSanitizer.clean(url)
        let format: FormatContext
        do {
            format = try FormatContext(url: url, options: openOptions, timeout: options.opening.timeout, interrupt: InterruptToken(clock: options.time),
                                       network: options.network)
        } catch {
            throw PlayerError("cannot open audio file '\(name)': \(NetworkSettings.explain(error, url: url, options: openOptions, timeout: options.network.readTimeout, openDeadline: options.opening.timeout, clock: options.time))")
        }
        var info: MediaInfo
        do {
            format.interrupt.arm(seconds: options.opening.timeout)
            defer { format.interrupt.arm(seconds: nil) }
            info = try MediaProbe.probe(format)
        } catch {
            throw PlayerError("cannot read audio file '\(name)': \(error.message)")
        }
        let usable = info.audio.filter { $0.index < indexStride }
        guard !usable.isEmpty else { throw PlayerError("audio file '\(name)' has no audio stream; ignored") }
        let file = URL(fileURLWithPath: url).lastPathComponent
        let label = TextSanitizer.clean(url.contains("://") ? (URL(string: url)?.lastPathComponent ?? url) : file)
        let tracks = usable.map { a -> AudioStreamInfo in
            var t = a
            t.index = indexBase + number * indexStride + a.index
            t.externalFile = url
            let own = t.tags.title.map { " (\($0))" } ?? ""
            t.tags.title = "external: \(label.isEmpty ? "audio file" : label)\(usable.count > 1 ? own : "")"
            return t
        }
        // Only the playing stream is read: the others are discarded until chosen.
        for i in 0..<format.streamCount { format.stream(i)?.pointee.discard = AVDISCARD_ALL }
        return ExternalAudio(format: format, number: number, tracks: tracks)
    }

    /// Keeps demuxer stream `local` and discards every other one. Audio-file thread.
    func select(local: Int) {
        for i in 0..<format.streamCount { format.stream(i)?.pointee.discard = i == local ? AVDISCARD_DEFAULT : AVDISCARD_ALL }
    }
}

/// Finds an audio stream, of the main source or of an audio file, with the timeline it is read on.
struct AudioStreams: @unchecked Sendable {  // the pointers are read on the thread that owns the decoder
    let main: FormatContext
    let externals: [ExternalAudio]

    func stream(_ index: Int) -> (UnsafeMutablePointer<AVStream>, Timeline)? {
        if let ext = externals.first(where: { $0.owns(index) }), let local = ext.local(index) {
            return ext.format.stream(local).map { ($0, ext.format.timeline) }
        }
        return main.stream(index).map { ($0, main.timeline) }
    }
}
