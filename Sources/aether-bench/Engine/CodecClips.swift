import Foundation

/// The 1080p24 decode clips, one per codec, encoded by the ffmpeg CLI at bench time and cached
/// in the work directory (keyed by codec and length, so a second invocation reuses them).
///
/// Every clip is testsrc2 (its noise patch keeps the residual non-trivial), 1920×1080, 24 fps,
/// a keyframe every second, no audio, at about 5 Mbit/s, so codecs are compared at one bitrate.
struct CodecClip {
    let name: String
    /// Encoder arguments after the input.
    let encoder: [String]
    /// The encoder must be in `ffmpeg -encoders` for the clip to exist.
    let encoderName: String

    static let all: [CodecClip] = [
        CodecClip(name: "h264", encoder: ["-c:v", "libx264", "-preset", "veryfast", "-b:v", "5M", "-maxrate", "5M",
                                          "-bufsize", "10M", "-pix_fmt", "yuv420p"], encoderName: "libx264"),
        CodecClip(name: "hevc", encoder: ["-c:v", "libx265", "-preset", "ultrafast", "-b:v", "5M", "-pix_fmt", "yuv420p",
                                          "-profile:v", "main", "-x265-params", "log-level=error"], encoderName: "libx265"),
        CodecClip(name: "hevc-main10", encoder: ["-c:v", "libx265", "-preset", "ultrafast", "-b:v", "5M", "-pix_fmt", "yuv420p10le",
                                                 "-profile:v", "main10", "-x265-params", "log-level=error"], encoderName: "libx265"),
        CodecClip(name: "vp9", encoder: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
                                         "-b:v", "5M"], encoderName: "libvpx-vp9"),
        CodecClip(name: "av1", encoder: ["-c:v", "libsvtav1", "-preset", "12", "-b:v", "5M"], encoderName: "libsvtav1"),
        CodecClip(name: "vp8", encoder: ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "5M"],
                  encoderName: "libvpx"),
        CodecClip(name: "mpeg2", encoder: ["-c:v", "mpeg2video", "-b:v", "5M", "-maxrate", "5M", "-bufsize", "10M"],
                  encoderName: "mpeg2video"),
        CodecClip(name: "mpeg4", encoder: ["-c:v", "mpeg4", "-b:v", "5M"], encoderName: "mpeg4"),
    ]

    /// Encodes the clip unless it is cached; nil (with the reason) when the encoder is missing or fails.
    /// `gop`: frames from one keyframe to the next.
    func ensure(seconds: Int, directory: String, gop: Int = 24) -> (path: String?, problem: String?) {
        let path = "\(directory)/\(name)-1080p24-\(seconds)s" + (gop == 24 ? "" : "-gop\(gop)") + ".mkv"
        if FileManager.default.fileExists(atPath: path) { return (path, nil) }
        guard let encoders = Spawn.output(["ffmpeg", "-hide_banner", "-encoders"]),
              encoders.contains(" \(encoderName) ") else {
            return (nil, "ffmpeg has no \(encoderName) encoder")
        }
        let partial = path + ".part.mkv"
        let argv = ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=24", "-t", "\(seconds)",
                    "-an", "-g", "\(gop)"] + encoder + ["-y", partial]
        guard Spawn.run(argv).status == 0, (try? FileManager.default.moveItem(atPath: partial, toPath: path)) != nil else {
            try? FileManager.default.removeItem(atPath: partial)
            return (nil, "encoding failed: \(argv.joined(separator: " "))")
        }
        return (path, nil)
    }
}

/// The playback and seek file: the repository fixture `h264-1080p.mkv` (10 s 1080p24 H.264
/// Constrained Baseline, keyframe every second, capped at 3 Mbit/s, + AAC stereo) when it has been
/// generated, else the same recipe encoded here.
enum PlaybackClip {
    static let fixture = "Tests/Fixtures/out/h264-1080p.mkv"

    static func ensure(directory: String) -> String? {
        if FileManager.default.fileExists(atPath: fixture) { return fixture }
        let path = "\(directory)/h264-1080p-aac-10s.mkv"
        if FileManager.default.fileExists(atPath: path) { return path }
        let argv = ["ffmpeg", "-nostdin", "-v", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=24:d=10",
                    "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=10",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "24", "-keyint_min", "24",
                    "-sc_threshold", "0", "-threads:v", "1", "-crf", "28", "-maxrate", "3M", "-bufsize", "6M",
                    "-c:a", "aac", "-ac", "2", "-b:a", "128k", "-y", path]
        return Spawn.run(argv).status == 0 ? path : nil
    }
}
