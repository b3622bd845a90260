/// A 24-bit colour: a subtitle run's (ASS's primary colour) as the engine reads it and as the
/// screen draws it; neither needs the other's module for it.
public struct RGBColor: Sendable, Equatable, Hashable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }
}
