import AetherBase
import AetherMedia
import CALSA
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Plays through an ALSA PCM device; owns the `snd_pcm_t` and closes it exactly once.
/// Recovers from xruns and suspends inside `write` (mpv's `recover_and_get_state`).
/// The device is opened non-blocking: `write` waits in `snd_pcm_wait` slices of at most 50 ms and
/// `drain` on a condition that `interrupt()` signals, so `interrupt()` ends them at once and a
/// stalled device cannot hang a thread.
public final class ALSASink: AudioSink {
    private let pcm: OpaquePointer
    public let device: String
    public let format: AudioFormat
    public let periodFrames: Int
    public let bufferFrames: Int
    private let canPause: Bool
    private var paused = false
    public private(set) var xruns = 0
    private let interrupted = Atomic<Bool>(false)
    /// Set by `interrupt()` (with `interrupted`, which the write loop reads): a drain waiting for
    /// the queued audio to be heard ends at once.
    private let interruption = GuardedCondition(false)
    /// What a drain's deadline is read from (the session's clock).
    private let time: TimeSource
    /// Wait slices in a row in which the device took nothing; past `stallLimit` it is stalled.
    static let stallLimit = 100  // × 50 ms = 5 s
    public var name: String { "alsa:\(device)" }
    public var isClockSource: Bool { true }

    /// Opens `device` asking for `rate`/`channels`; ALSA grants the nearest it can.
    /// The corresponding C functions are `snd_pcm_open` and `snd_pcm_hw_params`.
    public init(device: String = "default", rate: Int, channels: Int,
                bufferTime: UInt32 = 200_000, periodTime: UInt32 = 20_000, time: TimeSource) throws(ALSAError) {
        self.time = time
        var handle: OpaquePointer? = nil
        try ALSASink.check(snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK), "snd_pcm_open")
        guard let handle else { throw ALSAError(code: -ENODEV, function: "snd_pcm_open", message: "no device") }
        var hw: OpaquePointer? = nil
        snd_pcm_hw_params_malloc(&hw)
        defer { snd_pcm_hw_params_free(hw) }
        var grantedRate = UInt32(rate)
        var grantedChannels = UInt32(channels)
        var buffer = bufferTime
        var period = periodTime
        var dir: Int32 = 0
        let steps: [(Int32, String)] = [
            (snd_pcm_hw_params_any(handle, hw), "snd_pcm_hw_params_any"),
            (snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access"),
            (snd_pcm_hw_params_set_format(handle, hw, SND_PCM_FORMAT_S16_LE), "snd_pcm_hw_params_set_format"),
            (snd_pcm_hw_params_set_channels_near(handle, hw, &grantedChannels), "snd_pcm_hw_params_set_channels_near"),
            (snd_pcm_hw_params_set_rate_near(handle, hw, &grantedRate, &dir), "snd_pcm_hw_params_set_rate_near"),
            (snd_pcm_hw_params_set_buffer_time_near(handle, hw, &buffer, &dir), "snd_pcm_hw_params_set_buffer_time_near"),
            (snd_pcm_hw_params_set_period_time_near(handle, hw, &period, &dir), "snd_pcm_hw_params_set_period_time_near"),
            (snd_pcm_hw_params(handle, hw), "snd_pcm_hw_params"),
        ]
        for (result, function) in steps where result < 0 {
            snd_pcm_close(handle)
            throw ALSASink.error(result, function)
        }
        var periodSize: snd_pcm_uframes_t = 0
        var bufferSize: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_period_size(hw, &periodSize, &dir)
        snd_pcm_hw_params_get_buffer_size(hw, &bufferSize)
        canPause = snd_pcm_hw_params_can_pause(hw) != 0
        pcm = handle
        self.device = device
        format = AudioFormat(sampleRate: Int(grantedRate), channels: Int(grantedChannels))
        periodFrames = Int(periodSize)
        bufferFrames = Int(bufferSize)
    }

    deinit {
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
    }

    public func interrupt() {
        interruption.update {
            interrupted.store(true, ordering: .relaxed)
            $0 = true
        }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard var p = samples.baseAddress else { return }
        var frames = samples.count / format.channels
        var idle = 0
        while frames > 0, !interrupted.load(ordering: .relaxed) {
            let n = snd_pcm_writei(pcm, p, snd_pcm_uframes_t(frames))
            if n > 0 {
                frames -= Int(n)
                p += Int(n) * format.channels
                idle = 0
                continue
            }
            let code = Int32(n)
            if code == 0 || code == -EAGAIN {
                idle += 1
                if idle > ALSASink.stallLimit {
                    throw ALSAError(code: -EAGAIN, function: "snd_pcm_writei", message: "the device stopped taking audio")
                }
                snd_pcm_wait(pcm, 50)
                continue
            }
            if code == -EPIPE || code == -ESTRPIPE || code == -EINTR {
                if code == -EPIPE { xruns += 1 }
                let r = snd_pcm_recover(pcm, code, 1)
                if r < 0 { throw ALSASink.error(r, "snd_pcm_recover") }
                continue
            }
            throw ALSASink.error(code, "snd_pcm_writei")
        }
    }

    public func delayFrames() -> Int {
        var delay: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(pcm, &delay) >= 0 else { return 0 }
        return max(0, Int(delay))
    }

    public func setPaused(_ paused: Bool) {
        guard paused != self.paused else { return }
        self.paused = paused
        if canPause, snd_pcm_pause(pcm, paused ? 1 : 0) >= 0 { return }
        // No hardware pause: drop what is queued (the engine re-anchors the clock) and re-prime.
        if paused { snd_pcm_drop(pcm) } else { snd_pcm_prepare(pcm) }
    }

    public func reset() {
        if paused, canPause { snd_pcm_pause(pcm, 0) }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
        if paused, canPause { paused = false }
    }

    /// Waits until the queued audio has been heard, at most the buffer's length plus a second.
    /// Non-blocking `snd_pcm_drain` returns at once (and a blocking one could not be interrupted):
    /// instead it waits on ``interruption`` for as long as the device's delay says the queued
    /// frames last, then asks again (the delay includes a sound server's latency), so the wait
    /// ends when they have been heard, when the device stops, or at once on `interrupt()`.
    public func drain() {
        if paused { setPaused(false) }
        let state = snd_pcm_state(pcm)
        if state == SND_PCM_STATE_PREPARED, delayFrames() > 0 { snd_pcm_start(pcm) }
        let rate = Double(max(1, format.sampleRate))
        let deadline = time.seconds + Double(bufferFrames) / rate + 1
        while !interrupted.load(ordering: .relaxed), snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING {
            let queued = delayFrames()
            let left = deadline - time.seconds
            guard queued > 0, left > 0 else { break }
            interruption.wait(until: { $0 }, timeout: min(left, max(0.001, Double(queued) / rate)))
        }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    static func error(_ code: Int32, _ function: String) -> ALSAError {
        ALSAError(code: code, function: function, message: String(cString: snd_strerror(code)))
    }

    static func check(_ code: Int32, _ function: String) throws(ALSAError) {
        if code < 0 { throw error(code, function) }
    }

    /// Routes alsa-lib's own error printing away from the terminal.
    public static func silenceLibraryErrors() {
        aether_alsa_silence_errors()
    }
}
