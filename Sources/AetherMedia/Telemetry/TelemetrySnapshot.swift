/// The engine's 1 Hz view of itself (AetherEngine's LiveTelemetry plus the `[SWDiag]` fields),
/// grouped by what each part measures. Written as one flat JSON object (`--stats-file`'s
/// `{"telemetry": …}` lines): every group writes its keys beside the others', under the names
/// they always had.
public struct TelemetrySnapshot: Codable, Sendable, Equatable {
    public var position: Double = 0
    public var state: String = "idle"
    /// Playback speed.
    public var rate: Double = 1
    public var bitrates = Bitrates()
    /// What is buffered ahead of the clock.
    public var buffer = Buffer()
    public var frames = FrameCounts()
    /// Frames presented per wall second over the last interval.
    public var observedFPS: Double = 0
    /// Packets the decoders rejected as damaged (skipped, playback went on), and failed reads
    /// the demuxer resynced past.
    public var decodeErrors: Int = 0
    public var readErrors: Int = 0
    public var sync = Sync()
    public var stages = StageCosts()
    public var audio = Audio()
    public var video = Video()
    public var network = Network()
    public var variant = Variant()

    public init() {}

    /// Bits per second.
    public struct Bitrates: Codable, Sendable, Equatable {
        /// Of the media played over the last interval (the packets the decoders took: the
        /// stream's own bit rate times the speed). Reading ahead does not count: a local file is
        /// read in bursts, then not at all.
        public var instant: Double = 0
        /// The stream's own bit rate since playback started: the audio and video packets read,
        /// over the media time they cover (`MediaSpan`); the same from the first line (reading
        /// ahead adds bytes and the time they cover alike), whatever the speed.
        public var average: Double = 0
        /// What the demuxer read over the last interval (the download rate of a network source
        /// while its cache fills).
        public var read: Double = 0

        enum CodingKeys: String, CodingKey {
            case instant = "instantBitrate", average = "averageBitrate", read = "readBitrate"
        }
    }

    public struct Buffer: Codable, Sendable, Equatable {
        /// Seconds of demuxed media ahead of the clock, and decoded frames waiting.
        public var seconds: Double = 0
        public var frames: Int = 0
        /// The pipeline's queues as they were at the sample (video and audio packets, decoded
        /// frames): the inspector's live tab draws them.
        public var queues: [QueueFill] = []

        enum CodingKeys: String, CodingKey {
            case seconds = "bufferedSeconds", frames = "bufferedFrames", queues
        }
    }

    /// The clock and how well the pictures keep to it.
    public struct Sync: Codable, Sendable, Equatable {
        public var clockSource: String = "system"
        /// The master clock's media time at the sample.
        public var clockTime: Double = 0
        /// Presented pts minus clock when the frame was out, in milliseconds (last, mean, p95
        /// over the last `Telemetry.gapWindow` frames).
        public var gapLastMs: Double = 0
        public var gapMeanMs: Double = 0
        public var gapP95Ms: Double = 0

        enum CodingKeys: String, CodingKey {
            case clockSource, clockTime, gapLastMs = "avGapLastMs", gapMeanMs = "avGapMeanMs", gapP95Ms = "avGapP95Ms"
        }
    }

    /// Per-stage cost over the last interval (the bytes-to-pixels pipeline, stage by stage):
    /// reading a packet (I/O and demuxing), decoding a frame, filtering it (deinterlace, tone
    /// map), scaling it to the host's size, and the host's presenting of it. Hosts fill in
    /// `renderMsPerFrame` (encoding for the terminal) and `writeMsPerFrame` (writing the bytes),
    /// which together make up the present stage.
    public struct StageCosts: Codable, Sendable, Equatable {
        public var readMsPerPacket: Double = 0
        public var decodeMsPerFrame: Double = 0
        public var filterMsPerFrame: Double = 0
        public var scaleMsPerFrame: Double = 0
        public var presentMsPerFrame: Double = 0
        public var renderMsPerFrame: Double = 0
        public var writeMsPerFrame: Double = 0
    }

    public struct Audio: Codable, Sendable, Equatable {
        public var device: String = ""
        public var format: String = ""
        public var decoder: String = ""
        public var volume: Double = 100
        public var muted = false
        /// The loudness gain applied (`track -6.00 dB`, `album …`, `fallback …`); nil when off.
        public var replayGain: String?
        /// The `--af` chain the sound goes through; nil when none.
        public var filters: String?
        /// The equalizer the sound goes through (`vocal, preamp -5.3 dB`: its name and the preamp
        /// it runs with at the stream's rate, lowered where the curve would gain); nil when flat.
        public var equalizer: String?
        public var xruns = 0

        enum CodingKeys: String, CodingKey {
            case device = "audioDevice", format = "audioFormat", decoder = "audioDecoder", volume, muted, xruns = "audioXruns", equalizer
        }
    }

    public struct Video: Codable, Sendable, Equatable {
        public var decoder: String = ""
        public var deinterlacing = false
        /// Frames the decoder leaves without the loop filter (`bidir`, …), nil when none.
        public var loopFilterSkip: String?
        public var toneMapping = false

        enum CodingKeys: String, CodingKey {
            case decoder = "videoDecoder", deinterlacing, loopFilterSkip, toneMapping
        }
    }

    /// Network sources: playback waits for the cache (`buffering…`), times it had to, how far
    /// the demuxer has read (media seconds), the network's phase (`flowing`, `reconnecting 2`,
    /// `failed: certificate`: ``NetworkFailure/Cause/name``), body bytes received, reconnects and the recent rate (bytes/s). Not written to
    /// the stats file.
    public struct Network: Sendable, Equatable {
        public var buffering = false
        public var rebuffers = 0
        public var cachedUntil: Double?
        public var phase: String?
        public var bytes: Int64?
        public var retries: Int?
        /// The source's throughput estimate in bytes per second (`NetworkStatus.throughput`:
        /// with bit-rate switching, ``Variant/estimatedThroughput`` / 8).
        public var bytesPerSecond: Double?
    }

    /// Adaptive streams: the playing variant's peak bit rate (`BANDWIDTH`, b/s) and its 1-based
    /// number in the master; with bit-rate switching, the throughput estimate (b/s) and how many
    /// switches there were.
    public struct Variant: Codable, Sendable, Equatable {
        public var bitrate: Int?
        public var number: Int?
        public var estimatedThroughput: Double?
        public var switches: Int?

        enum CodingKeys: String, CodingKey {
            case bitrate = "hlsBitrate", number = "variantNumber", estimatedThroughput, switches = "variantSwitches"
        }
    }

    enum CodingKeys: String, CodingKey {
        case position, state, rate, observedFPS, decodeErrors, readErrors
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        position = try c.decode(Double.self, forKey: .position)
        state = try c.decode(String.self, forKey: .state)
        rate = try c.decode(Double.self, forKey: .rate)
        observedFPS = try c.decode(Double.self, forKey: .observedFPS)
        decodeErrors = try c.decode(Int.self, forKey: .decodeErrors)
        readErrors = try c.decode(Int.self, forKey: .readErrors)
        // Every group reads its keys from the same object.
        (bitrates, buffer, frames) = try (Bitrates(from: decoder), Buffer(from: decoder), FrameCounts(from: decoder))
        (sync, stages, audio, video, variant) = try (Sync(from: decoder), StageCosts(from: decoder), Audio(from: decoder),
                                                     Video(from: decoder), Variant(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(position, forKey: .position)
        try c.encode(state, forKey: .state)
        try c.encode(rate, forKey: .rate)
        try c.encode(observedFPS, forKey: .observedFPS)
        try c.encode(decodeErrors, forKey: .decodeErrors)
        try c.encode(readErrors, forKey: .readErrors)
        // Every group writes its keys into the same object.
        for group in [bitrates, buffer, frames, sync, stages, audio, video, variant] as [any Encodable] { try group.encode(to: encoder) }
    }
}

/// Frames counted since playback started (telemetry and the stats summary).
public struct FrameCounts: Codable, Sendable, Equatable {
    public var decoded: Int = 0
    public var presented: Int = 0
    public var droppedLate: Int = 0
    public var droppedEarly: Int = 0
    /// Frames the host replaced with a newer one before it could show them (a terminal slower
    /// than the video): reported by hosts that paint on their own thread.
    public var superseded: Int = 0
    /// Frames not converted because the host paints only every n-th
    /// (`Player.setFrameDivisor(_:)`); not written to the stats file.
    public var skipped: Int = 0

    public init() {}

    public var dropped: Int { droppedLate + droppedEarly }

    enum CodingKeys: String, CodingKey {
        case decoded = "framesDecoded", presented = "framesPresented", droppedLate = "framesDroppedLate"
        case droppedEarly = "framesDroppedEarly", superseded = "framesSuperseded"
    }
}

/// One bounded queue's fill: items and bytes against its bounds.
public struct QueueFill: Codable, Sendable, Equatable {
    public var name: String
    public var items: Int
    public var capacity: Int
    public var bytes: Int
    /// Nil when the queue is bounded by count alone.
    public var byteCapacity: Int?

    public init(name: String, items: Int, capacity: Int, bytes: Int, byteCapacity: Int?) {
        self.name = name
        self.items = items
        self.capacity = capacity
        self.bytes = bytes
        self.byteCapacity = byteCapacity
    }

    /// The fuller of the two bounds, 0…1.
    public var level: Double {
        let byItems = capacity > 0 ? Double(items) / Double(capacity) : 0
        let byBytes = (byteCapacity ?? 0) > 0 ? Double(bytes) / Double(byteCapacity!) : 0
        return min(1, max(byItems, byBytes))
    }
}
