/// When the loop wakes with no event: the soonest of what is due on screen. The runtime fills it
/// from the player and the model; ``seconds(now:)`` decides, on the loop's clock (tested on a
/// manual clock, `WakeScheduleTests`).
struct WakeSchedule {
    /// What playback shows by the media time, while playing.
    struct Playing {
        var position: Double
        var rate: Double
        /// The next change of the subtitles shown (media time; nil: none, or hidden).
        var nextCue: Double?
        /// The music view's frames a second (nil: no music view).
        var frameRate: Double?
    }

    /// Times on the loop's clock something is due at: the telemetry sample, the memory trim,
    /// tmux's repaints and checks.
    var at: [Double] = []
    /// Seconds from now something is due in: the chrome hiding or the message ending, the
    /// controller's next step (an image's time up).
    var within: [Double] = []
    var playing: Playing?
    /// Network trouble (`reconnecting (2)`) counts up without a state change.
    var networkTrouble = false

    /// Seconds from `now` to the first thing due: the clock text's next quarter second and the
    /// next subtitle change at the playback rate, the music view's next frame, four times a
    /// second with network trouble; a minute at most, a millisecond at least.
    func seconds(now: Double) -> Double {
        var due = min(60, (at.map { $0 - now } + within).min() ?? 60)
        if let playing {
            let rate = max(0.01, playing.rate)
            let quarters = playing.position * 4
            due = min(due, (quarters.rounded(.down) + 1 - quarters) / 4 / rate)
            if let next = playing.nextCue { due = min(due, (next - playing.position) / rate) }
            if let fps = playing.frameRate { due = min(due, 1 / fps) }
        }
        if networkTrouble { due = min(due, 0.25) }
        return max(0.001, due)
    }
}
