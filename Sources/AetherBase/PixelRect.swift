/// A rectangle of pixels in an image, 0-based (x 0 / y 0 is the image's top-left pixel): a sprite
/// thumbnail's cell in its sheet, a hole or a changed piece of a terminal picture. The one pixel-rectangle
/// type of the program, here so that the engine and the terminal graphics share it.
public struct PixelRect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// True when the rectangle covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The overlap of two rectangles (empty, with zero width or height, when they do not meet).
    public func intersection(_ other: PixelRect) -> PixelRect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}
