import CFFmpeg

/// The FFmpeg libraries the player was built against and the ones it runs on (each library's
/// own answer): `--version`, and the start-up check that they can work together.
public enum FFmpegVersions {
    public struct Library: Sendable, Equatable {
        public let name: String
        /// `LIBAVCODEC_VERSION_INT` and the like: major << 16 | minor << 8 | micro.
        public let built: UInt32
        public let running: UInt32

        public static func text(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
        public var builtText: String { Self.text(built) }
        public var runningText: String { Self.text(running) }
        /// A different major version: another ABI, which the player cannot use.
        public var isIncompatible: Bool { built >> 16 != running >> 16 }
    }

    /// libavcodec, libavformat, libavutil, libswscale and libswresample (libavfilter is
    /// loaded on first use, not linked: ``FilterGraph``).
    public static var libraries: [Library] {
        [Library(name: "libavcodec", built: aether_built_avcodec_version(), running: avcodec_version()),
         Library(name: "libavformat", built: aether_built_avformat_version(), running: avformat_version()),
         Library(name: "libavutil", built: aether_built_avutil_version(), running: avutil_version()),
         Library(name: "libswscale", built: aether_built_swscale_version(), running: swscale_version()),
         Library(name: "libswresample", built: aether_built_swresample_version(), running: swresample_version())]
    }

    /// FFmpeg's release as the running libavutil names it (`5.1.9-0+deb12u1`).
    public static var release: String { av_version_info().map { String(cString: $0) } ?? "unknown" }

    /// One line for each library whose major version differs from the one built against, or nil.
    public static var incompatibility: String? {
        let bad = libraries.filter(\.isIncompatible)
        guard !bad.isEmpty else { return nil }
        return "built for FFmpeg's " + bad.map { "\($0.name) \($0.builtText)" }.joined(separator: ", ")
            + " but running with " + bad.map { "\($0.name) \($0.runningText)" }.joined(separator: ", ")
            + ": reinstall aether-tui for this release"
    }
}
