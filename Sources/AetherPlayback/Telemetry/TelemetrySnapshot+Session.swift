import AetherBase
import AetherMedia
import AetherStreaming
import FoundationEssentials

extension TelemetrySnapshot {
    /// The session's view of itself now (``Player/telemetry(advance:)``): its counters
    /// (``Telemetry/fill(_:advance:)``), its control state, clock, queues, decoders, device
    /// and network. `advance` starts a new interval for the instant rates.
    init(session s: PlaybackSession, advance: Bool) {
        self.init()
        s.telemetry.fill(&self, advance: advance)
        let c = s.control.read { $0 }
        state = c.state.rawValue
        position = s.position
        buffer.seconds = max(0, c.demuxedUntil - s.clock.time)
        buffer.frames = s.queues.frames.count
        sync.clockTime = s.clock.time
        func fill<E>(_ name: String, _ q: BoundedQueue<E>) -> QueueFill {
            let f = q.fill
            return QueueFill(name: name, items: f.count, capacity: f.maxCount, bytes: f.cost,
                             byteCapacity: f.maxCost == .max ? nil : f.maxCost)
        }
        buffer.queues = [fill("video packets", s.queues.video), fill("audio packets", s.queues.audio), fill("frames", s.queues.frames)]
        sync.clockSource = s.clock.isArmed ? s.clock.source.rawValue : "unarmed"
        audio.device = c.streams.audio == nil ? "none" : (s.sink?.name ?? "none")
        audio.format = c.streams.audio == nil ? "" : (s.sink?.format.description ?? "")
        let status = s.video?.status.withLock { $0 } ?? (deinterlacing: false, loopFilterSkip: "", threads: 0)
        // "h264, 1 thread" while one decoder thread keeps up (``DecoderThreads``).
        video.decoder = (s.video?.decoderName).map { status.threads > 0 ? "\($0), \(status.threads) thread\(status.threads == 1 ? "" : "s")" : $0 } ?? ""
        audio.decoder = c.streams.audio == nil ? "" : (s.audio?.decoderName.withLock { $0 } ?? "")
        video.deinterlacing = status.deinterlacing
        video.loopFilterSkip = status.loopFilterSkip.isEmpty ? nil : status.loopFilterSkip
        video.toneMapping = (s.info.primaryVideo?.format.isHDR ?? false) && (s.video?.renderSize.withLock { $0 != nil } ?? false)
        rate = c.settings.rate
        audio.volume = c.settings.volume
        audio.muted = c.settings.muted
        audio.replayGain = s.replayGain.source.map { $0 + String(cFormat: " %+.2f dB", s.replayGain.db) }
        audio.filters = c.streams.audio == nil || s.options.audio.filters.isEmpty ? nil : s.options.audio.filters
        // What the filter chain runs, at the rate the stream decodes to (the probe's rate can
        // be another: HE-AAC's half rate before its SBR).
        if c.streams.audio != nil, let running = s.audio?.runningEqualizer.withLock({ $0 }), !running.isFlat {
            audio.equalizer = "\(c.settings.equalizer.name), preamp \(String(cFormat: "%+.1f", running.preamp)) dB"
                + (running.preamp < c.settings.equalizer.curve.preamp ? " (lowered: no frequency gains)" : "")
        }
        audio.xruns = (s.sink as? ALSASink)?.xruns ?? 0
        network.buffering = c.cache.buffering
        network.rebuffers = c.cache.rebuffers
        network.cachedUntil = s.cachedUntil
        if let net = s.format.networkStatus {
            switch net.phase {
            case .flowing: network.phase = "flowing"
            case .reconnecting(let attempt, _): network.phase = "reconnecting \(attempt)"
            case .failed(let why): network.phase = "failed: \(why.cause.name)"
            }
            network.bytes = net.bytes
            network.retries = net.retries
            network.bytesPerSecond = net.throughput
        }
        if let playing = s.format.adaptive?.status.variant ?? s.adaptive.variant { variant.bitrate = playing.bandwidth }
        if let adaptive = s.format.adaptive?.status {
            variant.estimatedThroughput = adaptive.estimate.map { $0.rounded() }
            variant.switches = adaptive.switchCount
            variant.number = adaptive.variantIndex + 1
        } else if let playing = s.adaptive.variant, let k = s.adaptive.variants.firstIndex(of: playing) {
            variant.number = k + 1
        }
    }
}
