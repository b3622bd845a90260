import AetherMedia
import AetherStreaming
import CFFmpeg

/// The demuxing half of both inspectors: opens the source, seeks to the start position, and
/// hands out the selected packets one at a time until the end, the length bound, a read error
/// or a read that blocks past the deadline. It owns the `FormatContext` and the one `Packet`.
final class InspectionReader {
    enum Step {
        /// `packet` holds a selected packet of this stream until the next call.
        case packet(InspectedStream)
        case end(InspectionEnd.Reason, error: String?)
    }

    let format: FormatContext
    let packet: Packet
    /// The selected streams that existed when the source was opened, in index order.
    let streams: [InspectedStream]
    /// Selected packets handed out so far.
    private(set) var packetsRead = 0

    /// Explicitly chosen indices; nil = every stream of `defaultKinds`, also streams that appear
    /// mid-file (MPEG-TS programs may add them).
    private let chosen: Set<Int>?
    private let defaultKinds: Set<StreamKind>
    /// Source seconds at which reading stops (`start + length` past the container's start).
    private let endSeconds: Double?
    private let readTimeout: Double
    private var known: [Int: InspectedStream] = [:]
    private var holdsPacket = false

    /// - Parameter defaultKinds: the kinds read when `limits.streams` is `.all`.
    /// - Parameter network: how a network URL is fetched (through the transport, as playback's).
    /// - Parameter clock: the open's and the reads' deadlines.
    init(url: String, options: [String: String], network: NetworkSettings, limits: InspectionLimits,
         defaultKinds: Set<StreamKind> = Set(StreamKind.allCases), clock: TimeSource) throws(InspectionError) {
        // InterruptToken converts the deadline to nanoseconds: keep it finite and within a day.
        let timeout = limits.readTimeout.isFinite && limits.readTimeout > 0 ? min(limits.readTimeout, 86_400) : 15
        do {
            format = try FormatContext(url: url, options: options, timeout: timeout, interrupt: InterruptToken(clock: clock), network: network)
        } catch {
            throw .cannotOpen(error)
        }
        do { packet = try Packet() } catch { throw .ffmpeg(error) }
        readTimeout = timeout
        self.defaultKinds = defaultKinds

        var all: [InspectedStream] = []
        for index in 0..<format.streamCount {
            guard let stream = format.stream(index) else { continue }
            all.append(InspectedStream(stream, index: index))
        }
        if limits.streams.isAll {
            chosen = nil
        } else {
            chosen = try limits.streams.resolve(kinds: all.map(\.kind))
        }
        let picked = chosen
        streams = all.filter { picked?.contains($0.index) ?? defaultKinds.contains($0.kind) }
        known = Dictionary(uniqueKeysWithValues: all.map { ($0.index, $0) })

        let ctx = format.pointer
        let duration = InspectionMath.duration(ctx)
        func resolve(_ time: InspectionTime?) throws(InspectionError) -> Double? {
            switch time {
            case nil: return nil
            case .seconds(let s): return s.isFinite ? max(0, s) : 0
            case .percent(let p):
                guard let duration else { throw .unknownDuration }
                return duration * min(max(p, 0), 100) / 100
            }
        }
        let start = try resolve(limits.start)
        let length = try resolve(limits.length)
        let origin = InspectionMath.origin(ctx)
        endSeconds = length.map { origin + (start ?? 0) + $0 }
        if let start, start > 0 {
            let target = InspectionMath.int64((origin + start) * Double(AV_TIME_BASE))
            format.interrupt.arm(seconds: timeout)
            let result = avformat_seek_file(ctx, -1, Int64.min, target, target, 0)
            format.interrupt.arm(seconds: nil)
            if result < 0 { throw .cannotSeek(seconds: start, FFmpegError(code: result, function: "avformat_seek_file")) }
        }
    }

    /// Reads up to the next selected packet. The corresponding C function is `av_read_frame`.
    func next() -> Step {
        if holdsPacket {
            packet.unref()
            holdsPacket = false
        }
        while true {
            format.interrupt.arm(seconds: readTimeout)
            let more: Bool
            do {
                more = try format.read(into: packet)
            } catch {
                let timedOut = format.interrupt.shouldInterrupt
                format.interrupt.arm(seconds: nil)
                return .end(timedOut ? .timedOut : .readError, error: TextSanitizer.clean(error.message))
            }
            format.interrupt.arm(seconds: nil)
            guard more else { return .end(.endOfFile, error: nil) }
            guard let stream = streamInfo(packet.streamIndex), isSelected(stream) else {
                packet.unref()
                continue
            }
            let raw = packet.pointer.pointee
            if let end = endSeconds,
               let t = stream.timeBase.seconds(InspectionMath.timestamp(raw.dts) ?? InspectionMath.timestamp(raw.pts)),
               t >= end {
                packet.unref()
                return .end(.lengthLimit, error: nil)
            }
            packetsRead += 1
            holdsPacket = true
            return .packet(stream)
        }
    }

    private func isSelected(_ stream: InspectedStream) -> Bool {
        chosen?.contains(stream.index) ?? defaultKinds.contains(stream.kind)
    }

    /// The stream of a packet; streams that appear after opening are described on first sight.
    func streamInfo(_ index: Int) -> InspectedStream? {
        if let stream = known[index] { return stream }
        guard let pointer = format.stream(index) else { return nil }
        let stream = InspectedStream(pointer, index: index)
        known[index] = stream
        return stream
    }
}
