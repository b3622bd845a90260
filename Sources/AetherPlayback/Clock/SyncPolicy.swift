/// Every threshold the clock and presenter use, in one place tests can vary (ffplay's
/// `AV_SYNC_THRESHOLD_*`, AetherEngine's lookahead constants).
public struct SyncPolicy: Sendable {
    /// A frame later than this many frame intervals behind the clock is dropped (counted late).
    public var lateDropIntervals = 1.0
    /// For this long after the clock starts (playback start, after a seek) late frames are shown
    /// rather than dropped: the device may have started a period before we could tell, and
    /// dropping the first frames of a scene is worse than showing them a few ms late.
    public var startGraceSeconds = 0.3
    /// The video thread drops frames already this many frame intervals behind the clock before
    /// converting them (counted early): converting one that late makes the next late too, and
    /// it would reach the screen later still. aether-bench, 4K60 HEVC Main10 on two cores:
    /// with 0.25 s instead, the first second (before the output's governor stepped) showed
    /// frames up to 150 ms late.
    public var earlyDropIntervals = 1.5
    /// An audio-device reading further than this from the interpolated clock re-anchors it hard;
    /// closer readings are slewed in, so the clock stays smooth between ALSA period updates.
    public var hardResyncSeconds = 0.05
    /// Fraction of the measured error folded into the clock at each audio write.
    public var slewFactor = 0.1
    /// Longest the presenter sleeps before looking at the clock again. Pause, seeks, stops and
    /// rate changes wake it at once (its waits are condition waits); this bounds how late a
    /// frame can be when the audio clock re-anchors while it sleeps. 10 ms cost 100 wake-ups
    /// a second for nothing.
    public var maxWaitSeconds = 0.05
    /// A one-thread video decoder that works more than this share of the frame interval per
    /// frame is reopened with more threads (``DecoderThreads``).
    public var oneThreadBusyShare = 0.5
    /// Decoded frames held ahead of the presenter.
    public var frameQueueCapacity = 4
    /// …and at most this many picture bytes of them (plus the frame that crosses it): 4 frames
    /// up to 1280×720 RGB (2.8 MB each; 3 of them cost xterm superseded frames at start-up),
    /// 3 of 1920×1080, 1 of 4K.
    public var frameQueueBytes = 12 << 20
    /// How much nicer than the rest the video thread and its decoder threads run (the
    /// scheduler gives a thread at nice 4 about 40 % of the weight of one at 0). aether-bench,
    /// 4K60 HEVC Main10 in sixel on two cores: A/V p95 162 ms with none.
    public var decodeNiceness = 4
    /// Demuxed bytes buffered ahead per stream queue.
    public var packetQueueBytes = 32 << 20
    /// Media seconds a source without a cache is read ahead of the clock (mpv: 1 s).
    public var readAheadSeconds = 1.0
    /// …unless an active packet queue holds fewer packets than this.
    public var readAheadMinPackets = 8
    /// How often a demuxer that is far enough ahead looks at the clock again (seeks and stops
    /// wake it at once).
    public var readAheadPollSeconds = 0.05

    public init() {}
    public static let standard = SyncPolicy()
}
