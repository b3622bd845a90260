/// Interleaved signed 16-bit PCM as the device takes it.
public struct AudioFormat: Sendable, Equatable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public var bytesPerFrame: Int { channels * 2 }
    /// `48000 Hz s16 stereo` (`mono`, `stereo`, else `6 ch`).
    public var description: String { "\(sampleRate) Hz s16 \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) ch")" }
    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
