import CFFmpeg

/// An error returned by an FFmpeg call, carrying the failing function and `av_strerror`'s text.
public struct FFmpegError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The negative `AVERROR` code.
    public let code: Int32
    /// The C function that failed, e.g. `avformat_open_input`.
    public let function: String
    /// FFmpeg's own words for `code` (`av_strerror`).
    public let message: String
    /// The network layer's reason, with its cause, when it is the network that failed.
    public private(set) var network: NetworkFailure?

    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
        self.message = FFmpegError.string(for: code)
    }

    /// An error that FFmpeg did not produce as a code (allocation failure, missing decoder).
    public init(function: String, message: String, code: Int32 = aether_AVERROR(EINVAL)) {
        self.code = code
        self.function = function
        self.message = message
    }

    /// The network layer gave up (`failure` says why; `code`, the AVERROR behind it).
    public init(network failure: NetworkFailure, code: Int32) {
        self.init(function: "network", message: failure.line, code: code)
        network = failure
    }

    public var description: String { "\(function): \(message)" }

    /// `AVERROR_EOF`.
    public var isEndOfFile: Bool { code == aether_AVERROR_EOF() }
    /// `AVERROR(EAGAIN)`.
    public var isTryAgain: Bool { code == aether_AVERROR_EAGAIN() }

    /// The corresponding C function is `av_strerror`.
    public static func string(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        aether_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static let endOfFile = FFmpegError(code: aether_AVERROR_EOF(), function: "av_read_frame")
    package static func outOfMemory(_ function: String) -> FFmpegError {
        FFmpegError(code: aether_AVERROR(ENOMEM), function: function)
    }
}

/// Turns a negative FFmpeg return value into a thrown `FFmpegError`; passes non-negative values through.
@discardableResult
package func check(_ result: Int32, _ function: String) throws(FFmpegError) -> Int32 {
    if result < 0 { throw FFmpegError(code: result, function: function) }
    return result
}
