import AetherEngine
import ArgumentParser
import Foundation

/// `aether-bench decode-pass FILE`: one `DecodePass` in its own process, so that the engine and
/// `ffmpeg` are measured the same way (`wait4`: wall, user + system CPU, process start included).
/// Prints `frames=N decoder=NAME pix_fmt=FMT`.
struct DecodePassCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-pass",
        abstract: "Decode one file's video through the engine, converting nothing (used by `engine`).",
        shouldDisplay: false)

    @Argument var file: String
    @Option(help: "Decoder threads (0 = as many as cores).") var threads = 0

    func run() throws {
        let r = try DecodePass.run(url: file, threads: threads, clock: .monotonic)
        print("frames=\(r.frames) decoder=\(r.decoderName) pix_fmt=\(r.pixelFormat)")
    }
}

/// Decode fps of one clip: the engine (`decode-pass` child) and `ffmpeg -f null` alternating,
/// `repeats` times each, after one untimed engine pass that also names the decoder.
struct DecodeThroughput {
    let selfPath: String
    let threads: Int
    let repeats: Int
    let workDir: String

    struct Row: Codable {
        var codec: String
        var file: String
        var decoder: String
        var pixelFormat: String
        var frames: Int
        var kbitPerSecond: Double
        var oursWallSeconds: Double
        var oursCPUSeconds: Double
        var ffmpegWallSeconds: Double
        var ffmpegCPUSeconds: Double
        var ffmpegCommand: String
        var oursFPS = 0.0
        var ffmpegFPS = 0.0
        /// Ours ÷ ffmpeg: above 1 means faster than ffmpeg.
        var fpsRatio = 0.0
        /// Ours ÷ ffmpeg: above 1 means more CPU than ffmpeg.
        var cpuRatio = 0.0

        mutating func derive() {
            oursFPS = Double(frames) / oursWallSeconds
            ffmpegFPS = Double(frames) / ffmpegWallSeconds
            fpsRatio = oursFPS / ffmpegFPS
            cpuRatio = oursCPUSeconds / ffmpegCPUSeconds
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case engine(String), ffmpeg(String)
        var description: String {
            switch self {
            case .engine(let s): "engine decode failed: \(s)"
            case .ffmpeg(let s): "ffmpeg failed: \(s)"
            }
        }
    }

    func measure(codec: String, file: String, seconds: Double) throws -> Row {
        let report = "\(workDir)/decode-pass.txt"
        let ours = [selfPath, "decode-pass", file, "--threads", "\(threads)"]
        guard Spawn.run(ours, stdoutPath: report).status == 0,
              let text = try? String(contentsOfFile: report, encoding: .utf8) else {
            throw Failure.engine(ours.joined(separator: " "))
        }
        var fields: [String: String] = [:]
        for pair in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
        }
        guard let frames = fields["frames"].flatMap(Int.init), frames > 0, let decoder = fields["decoder"] else {
            throw Failure.engine("no frames from \(ours.joined(separator: " "))")
        }
        // The same decoder by name, the same thread count, video only, nothing converted.
        let ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-threads", "\(threads)", "-c:v", decoder, "-i", file,
                      "-map", "0:v", "-f", "null", "-"]
        var oursRuns: [Measured] = [], ffmpegRuns: [Measured] = []
        for _ in 0..<repeats {
            let a = Spawn.run(ours)
            guard a.status == 0 else { throw Failure.engine(ours.joined(separator: " ")) }
            oursRuns.append(a)
            let b = Spawn.run(ffmpeg)
            guard b.status == 0 else { throw Failure.ffmpeg(ffmpeg.joined(separator: " ")) }
            ffmpegRuns.append(b)
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        var row = Row(codec: codec, file: file, decoder: decoder, pixelFormat: fields["pix_fmt"] ?? "?", frames: frames,
                   kbitPerSecond: Double(bytes) * 8 / 1000 / seconds,
                   oursWallSeconds: Stats.median(oursRuns.map(\.wallSeconds)),
                   oursCPUSeconds: Stats.median(oursRuns.map(\.cpuSeconds)),
                   ffmpegWallSeconds: Stats.median(ffmpegRuns.map(\.wallSeconds)),
                   ffmpegCPUSeconds: Stats.median(ffmpegRuns.map(\.cpuSeconds)),
                   ffmpegCommand: ffmpeg.joined(separator: " "))
        row.derive()
        return row
    }
}
