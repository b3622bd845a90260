/// A decoded picture handed out by the ``FrameExtractor``: packed RGB24, `width * 3` bytes per
/// row, already tone-mapped (PQ/HLG sources), rotated upright and stretched to the display
/// aspect ratio.
public struct StillImage: Sendable, Equatable {
    public let width: Int, height: Int
    public let pixels: [UInt8]
    /// Media time of the frame (the source's `start_time` subtracted, like the player's positions).
    public let seconds: Double
    /// The decoder marked the frame a keyframe.
    public let isKeyframe: Bool

    public init(width: Int, height: Int, pixels: [UInt8], seconds: Double, isKeyframe: Bool) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.seconds = seconds
        self.isKeyframe = isKeyframe
    }

    /// Memory the pixels take (the cache's byte cap counts this).
    public var byteCount: Int { pixels.count }
}

/// Counters of a ``FrameExtractor``, for tests, the stats pane and the benchmark.
public struct FrameExtractorStatistics: Sendable, Equatable, Codable {
    /// The demuxer and decoder are open now.
    public var isOpen = false
    /// Times the source was opened (the first request, and each request after an idle close).
    public var opens = 0
    /// Requests answered by decoding (thumbnails and snapshots, superseded ones included).
    public var decodes = 0
    /// Requests answered from the cache.
    public var cacheHits = 0
    public var thumbnailsCached = 0
    public var snapshotsCached = 0
    /// Pixel bytes held by the cache.
    public var cacheBytes = 0
    /// Requests that returned nil because a newer one came.
    public var superseded = 0
    /// Thumbnail and snapshot requests received (cache hits included).
    public var requests = 0

    public init() {}
}

/// Why a ``FrameExtractor`` request failed (besides an ``FFmpegError`` from the source itself).
public enum FrameExtractorError: Error, Equatable, CustomStringConvertible, Sendable {
    /// ``FrameExtractor/shutdown()`` was called.
    case shutDown
    /// The source has no video stream to take pictures from.
    case noVideo
    /// A header given to the extractor is not a valid HTTP header.
    case invalidHeader(String)
    /// The decoder produced no picture for the position (damaged or empty stream).
    case noFrame(Double)

    public var description: String {
        switch self {
        case .shutDown: "the frame extractor was shut down"
        case .noVideo: "no video stream"
        case .invalidHeader(let message): message
        case .noFrame(let seconds): "no picture decoded at \(seconds) s"
        }
    }
}
