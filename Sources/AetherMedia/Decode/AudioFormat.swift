/// Interleaved signed 16-bit PCM as the device takes it.
public struct AudioFormat: Sendable, Equatable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public var bytesPerFrame: Int { channels * 2 }
    public var description: String { "\(sampleRate) Hz s16 \(channels) ch" }
    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
