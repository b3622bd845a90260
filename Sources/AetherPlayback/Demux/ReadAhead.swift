/// How far a source without a cache (a local file) is read ahead of the clock: mpv's
/// `--demuxer-readahead-secs` (1 s). The packet queues' caps (600 video packets, 32 MB) are
/// sized for a network cache; filling them held 15 MB of packets at 5 Mbit/s and 32 MB at
/// 4K60. The clock stands at a seek's target from the moment the seek is carried out, so
/// loading and seeking read a second too, not to the caps.
///
/// A queue that runs low is fed whatever the lead: a file whose streams are interleaved far
/// apart (the sound a few seconds ahead of the picture in the file) must not starve one
/// decoder while the other's packets keep the lead.
public struct ReadAhead: Sendable {
    public var seconds: Double
    public var minimumPackets: Int

    public init(policy: SyncPolicy) {
        seconds = policy.readAheadSeconds
        minimumPackets = policy.readAheadMinPackets
    }

    /// Whether to stop reading for now. `lead` is media seconds demuxed past the clock; each
    /// queue's packet count is nil when its stream is not played (or has ended). Faster
    /// playback reads further ahead (`rate` × the seconds).
    public func isFull(lead: Double, rate: Double, videoPackets: Int?, audioPackets: Int?) -> Bool {
        guard lead.isFinite, lead >= seconds * max(1, rate.isFinite ? rate : 1) else { return false }
        if let videoPackets, videoPackets < minimumPackets { return false }
        if let audioPackets, audioPackets < minimumPackets { return false }
        return true
    }
}
