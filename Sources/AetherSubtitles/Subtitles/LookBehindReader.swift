import AetherBase
import AetherMedia
import CFFmpeg
import Dispatch
import Synchronization

/// Cues that began before a seek target are still on screen after it, but the demuxer starts
/// reading at the target: this reader reads the subtitle packets of the preceding `lookBehind`
/// seconds with a second demuxer of its own, off the playback threads.
///
/// Requests run one at a time on a serial queue; a newer request or ``close()`` supersedes the
/// one waiting or running (checked between packets), and ``close()`` also cancels its blocking
/// I/O. The demuxer is opened on the first request and kept for the next ones; a source that
/// cannot be opened twice (a pipe) is never read.
final class LookBehindReader: Sendable {
    static let lookBehind = 10.0
    /// Packets one request reads at most.
    static let packetBudget = 20_000

    /// The source exactly as opened (not the sanitised name), and what it was opened with (HTTP
    /// headers, protocol whitelist). Empty: nothing to read (a store for tests).
    private let url: String
    private let openOptions: [String: String]
    /// How a network source is read again (through the transport).
    private let network: NetworkSettings
    private let queue = DispatchQueue(label: "aether.subtitles.prefetch")
    /// The demuxer and the decoders, used on `queue` only (the lock is never contended).
    private let reader: Guarded<(format: FormatContext?, decoder: SubtitleDecoder)>
    private let generation = Atomic<Int>(0)
    /// Cancels the demuxer's blocking I/O from any thread (``close()``).
    private let interrupt: InterruptToken

    init(url: String, openOptions: [String: String], network: NetworkSettings, clock: TimeSource, decoder: SubtitleDecoder) {
        interrupt = InterruptToken(clock: clock)
        self.url = url
        self.openOptions = openOptions
        self.network = network
        reader = Guarded((nil, decoder))
    }

    /// Reads the packets of `stream` from `lookBehind` before `time` to `until`, handing each
    /// packet's cues to `deliver` on the reader's queue.
    func fetch(stream: Int, before time: Double, until: Double, deliver: @escaping @Sendable ([SubtitleCue]) -> Void) {
        guard !url.isEmpty else { return }
        let request = generation.add(1, ordering: .relaxed).newValue
        queue.async { [self] in
            guard generation.load(ordering: .relaxed) == request else { return }  // superseded
            read(stream: stream, from: time - LookBehindReader.lookBehind, until: until, request: request, deliver: deliver)
        }
    }

    /// Stops a read in flight and closes the demuxer and its decoders (the session is ending).
    func close() {
        generation.add(1, ordering: .relaxed)
        interrupt.cancel()
        queue.sync {
            reader.withLock {
                $0.format = nil
                $0.decoder.closeAll()
            }
        }
    }

    /// Runs on `queue` only.
    private func read(stream wanted: Int, from start: Double, until: Double, request: Int,
                      deliver: ([SubtitleCue]) -> Void) {
        if reader.withLock({ $0.format }) == nil {
            guard SourceOptions.isReopenable(url) else { return }  // a second reader would take the pipe's bytes
            let opened = try? FormatContext(url: url, options: openOptions, timeout: 5, interrupt: interrupt, network: network)
            reader.withLock { $0.format = opened }
            guard let format = opened else { return }
            for i in 0..<format.streamCount {
                guard let stream = format.stream(i) else { continue }
                let isSubtitle = stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE
                stream.pointee.discard = isSubtitle ? AVDISCARD_DEFAULT : AVDISCARD_ALL
            }
        }
        guard let format = reader.withLock({ $0.format }), let packet = try? Packet() else { return }
        let decoder = reader.withLock { $0.decoder }
        try? format.seek(toSeconds: max(0, start))
        var packets = 0
        format.interrupt.arm(seconds: 10)
        defer { format.interrupt.arm(seconds: nil) }
        while packets < LookBehindReader.packetBudget, generation.load(ordering: .relaxed) == request,
              (try? format.read(into: packet)) == true {
            defer { packet.unref() }
            packets += 1
            guard packet.streamIndex == wanted, let stream = format.stream(wanted), stream.pointee.codecpar != nil else { continue }
            if let pts = decoder.timeline.seconds(packet.pts, stream.pointee.time_base), pts > until { break }
            deliver(decoder.cues(of: packet, stream: stream))
        }
    }
}
