import AetherMedia
import AetherPlayback

/// What the host keeps of each item as it plays: the telemetry shown (sampled once a second),
/// the `--stats-file` lines, and one summary per item.
struct PlaybackRecorder {
    /// The telemetry shown (the pane, the inspector's live tab, the stats box).
    private(set) var telemetry = TelemetrySampler()
    /// `--stats-file` (nil: not asked for).
    private(set) var stats: StatsFile?
    /// When the current item was attached to the screen (the summary's wall seconds).
    private var wallStart = 0.0
    /// The current item's summary is written.
    private var summaryWritten = false

    /// Opens `--stats-file`.
    mutating func open(statsFile path: String) throws(PlayerError) {
        stats = try StatsFile(path: path)
    }

    /// A new item is on screen at `now`.
    mutating func itemStarted(at now: Double) {
        wallStart = now
        summaryWritten = false
    }

    /// The telemetry sample of `now`, when one is due (recorded in the stats file too).
    mutating func sample(player: Player, output: VideoOutput.Totals, terminalBytes: Int, now: Double) -> TelemetrySnapshot? {
        guard now >= telemetry.nextDue else { return nil }
        let sample = telemetry.sample(player.telemetry(advance: true), output: output, terminalBytes: terminalBytes, now: now)
        stats?.record(sample, player: player)
        return sample
    }

    /// When the next sample is due.
    var nextDue: Double { telemetry.nextDue }

    /// The item's one summary, written when a stats file is open: `describe` fills in what the
    /// screen knows (the output, the painted frames, the terminal's bytes).
    mutating func writeSummary(player: Player, startPosition: Double, interrupted: Bool, now: Double,
                               describe: (inout PlaybackSummary) -> Void) {
        guard let stats, !summaryWritten, player.mediaInfo != nil else { return }
        summaryWritten = true
        var summary = PlaybackSummary(player: player, startPosition: startPosition, wallSeconds: now - wallStart, interrupted: interrupted)
        describe(&summary)
        stats.writeSummary(summary, player: player)
    }
}
