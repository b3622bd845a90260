/// A web page that could not be read for its media (yt-dlp missing, silent, over budget, or
/// its answer unusable): one line for the user. The player keeps it as the cause of its
/// ``PlayerError``.
public struct PageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
