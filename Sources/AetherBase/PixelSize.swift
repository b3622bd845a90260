/// A size in pixels: what a host asks the decoder to scale frames to, and what the terminal
/// graphics place and encode. The one pixel-size type of the program, here so that the engine
/// and the terminal graphics share it without depending on each other.
public struct PixelSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)" }
}
