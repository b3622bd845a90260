
import AetherMedia
/// A push-based audio output (mpv's `ao` contract).
///
/// Every method is called from the engine's audio thread only, except `delayFrames()`, which
/// the audio thread also uses to re-anchor the master clock after each write.
/// - `write` blocks until every frame has been accepted by the device (this is what paces the
///   audio thread in real time). It never starts playback early: the first write starts it.
/// - `setPaused(true)` freezes output, keeping what is queued when the device can.
/// - `reset()` drops everything queued (seek, rate change, track switch).
/// - `drain()` blocks until everything queued has been heard (end of file), at most the buffered
///   duration plus a second.
/// - `interrupt()` (any thread) ends a blocked `write`/`drain` at once: nothing waits forever
///   on a stalled device.
public protocol AudioSink: AnyObject {
    /// `alsa:default`, `alsa:pulse`, `null`.
    var name: String { get }
    /// The format the device accepted (may differ from what was asked).
    var format: AudioFormat { get }
    /// True when the device paces in real time and its delay is a usable clock.
    var isClockSource: Bool { get }
    /// Frames the device buffers. Once this many are written, a `write` returning means the
    /// device really consumed audio (some devices report a delay before they truly start).
    var bufferFrames: Int { get }
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    /// Frames written but not yet heard.
    func delayFrames() -> Int
    func setPaused(_ paused: Bool)
    func reset()
    func drain()
    /// Makes a blocked `write` or `drain` return now, and every later one at once (the session
    /// is stopping). The only method that may be called from another thread.
    func interrupt()
}

/// An error from ALSA carrying the failing call and `snd_strerror`'s text.
public struct ALSAError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let function: String
    public let message: String
    public var description: String { "\(function): \(message)" }
}
