/// A failure the player reports through `state == .error` and `lastError`.
public struct PlayerError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
