import Foundation

/// A live stream being written into a temporary directory and served over HTTP.
public final class LiveStream {
    public let directory: String
    public let server: LoopbackHTTP
    private let writer: Process
    public let dash: Bool

    /// HLS by `live_hls.sh`, or (`dash`) a dynamic DASH MPD written by the ffmpeg CLI (with
    /// `twoVideos`, two video representations, 300k and 600k).
    public init(seconds: Int, dash: Bool = false, twoVideos: Bool = false) throws {
        self.dash = dash
        directory = NSTemporaryDirectory() + "aether-live-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        if dash {
            writer.arguments = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                "-re", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=24", "-re", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                                "-t", String(seconds), "-map", "0:v"] + (twoVideos ? ["-map", "0:v"] : []) + ["-map", "1:a",
                                "-c:v", "libx264", "-preset", "ultrafast", "-g", "48", "-keyint_min", "48", "-sc_threshold", "0",
                                "-b:v", "300k"] + (twoVideos ? ["-b:v:1", "600k"] : []) + ["-c:a", "aac", "-b:a", "64k",
                                "-f", "dash", "-seg_duration", "2", "-window_size", "6", "-extra_window_size", "2",
                                "-use_template", "1", "-use_timeline", "1", directory + "/live.mpd"]
        } else {
            writer.arguments = ["bash", LoopbackHTTP.scripts.appendingPathComponent("live_hls.sh").path, directory, String(seconds)]
        }
        writer.standardOutput = FileHandle.nullDevice
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        server = try LoopbackHTTP(root: directory)
    }

    /// Waits until the live playlist lists `count` segments (a player joins 3 back).
    public func waitForSegments(_ count: Int, timeout: Double = 30) -> Bool {
        waitUntil(timeout, interval: 0.2) {
            if dash {
                // Media segments of the video representation on disk.
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                return names.filter({ $0.hasPrefix("chunk-stream0-") }).count >= count
            }
            let text = (try? String(contentsOfFile: directory + "/index.m3u8", encoding: .utf8)) ?? ""
            return text.components(separatedBy: "#EXTINF").count - 1 >= count
        }
    }

    public var url: String { server.url(dash ? "live.mpd" : "index.m3u8") }

    public func stop() {
        if writer.isRunning {
            // The script and its ffmpeg both name the (unique) directory. A signal the script
            // would trap can be blocked in what the test runner spawns: SIGKILL both.
            _ = Process.run(["/usr/bin/pkill", "-KILL", "-f", directory], timeout: 10)
            writer.waitUntilExit()
        }
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
