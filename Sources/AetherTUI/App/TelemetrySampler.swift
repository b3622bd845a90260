import AetherMedia

/// The telemetry the screen shows (the pane, the stats box, the inspector's live tab), sampled
/// once a second: the engine's snapshot with the output's render and write times per painted
/// frame added, and the last half minute of it for the sparklines. UI thread.
struct TelemetrySampler {
    /// Seconds between samples.
    static let interval = 1.0

    /// The last sample.
    private(set) var latest = TelemetrySnapshot()
    private(set) var history = TelemetryHistory()
    /// When the last sample was taken (monotonic seconds).
    private(set) var sampledAt = 0.0
    /// The output's totals at the last sample.
    private var totals = VideoOutput.Totals()

    /// When the next sample is due.
    var nextDue: Double { sampledAt + Self.interval }

    /// Takes `snapshot` as the sample of `now`: the output's render and write milliseconds per
    /// frame painted since the last sample go into it (when it painted any), and it goes into
    /// the history with the terminal's byte count. Returns the sample.
    mutating func sample(_ snapshot: TelemetrySnapshot, output: VideoOutput.Totals, terminalBytes: Int, now: Double) -> TelemetrySnapshot {
        var sample = snapshot
        if output.framesPainted > totals.framesPainted {
            let frames = Double(output.framesPainted - totals.framesPainted)
            sample.stages.renderMsPerFrame = (output.renderSeconds - totals.renderSeconds) * 1000 / frames
            sample.stages.writeMsPerFrame = (output.writeSeconds - totals.writeSeconds) * 1000 / frames
        }
        totals = output
        history.add(sample, terminalBytes: terminalBytes)
        latest = sample
        sampledAt = now
        return sample
    }
}
