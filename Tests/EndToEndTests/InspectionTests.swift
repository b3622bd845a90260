import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// `aether-tui probe --packets` and `--frames` against ffprobe on the same files, on damaged data
/// and on hostile timestamps, run as the binary users run.
@Suite struct InspectionTests {
    // MARK: --packets

    static let packetFiles = [
        "h264-aac-2audio-srt-ass.mkv", "mpeg2-interlaced-mp2.ts", "hevc10-hdr10-ac3-51-movtext.mp4",
        "vp9-opus.webm", "damaged-h264.mkv", "nopts.h264", "extreme-timestamps.mkv",
    ]

    @Test(arguments: packetFiles)
    func packetsMatchFFprobe(file: String) throws {
        let path = TestEnvironment.fixture(file)
        let listing = try Inspection.run(["--packets", "--count", "all", path])
        let reference = try FFprobe.packets(path)
        #expect(listing.packets.count == reference.count)
        #expect(listing.end?.reason == .endOfFile)
        #expect(listing.end?.packets == reference.count)
        for (n, (ours, theirs)) in zip(listing.packets, reference).enumerated() {
            let context = "\(file) packet \(n)"
            #expect(ours.stream == theirs.int("stream_index"), "\(context)")
            #expect(ours.kind.rawValue == theirs.string("codec_type"), "\(context)")
            #expect(ours.pts == theirs.int64("pts"), "\(context)")
            #expect(ours.dts == theirs.int64("dts"), "\(context)")
            #expect(ours.duration == theirs.int64("duration"), "\(context)")
            #expect(ours.size == theirs.int("size"), "\(context)")
            #expect(ours.position == theirs.int64("pos"), "\(context)")
            #expect(ours.isKey == (theirs.string("flags")?.first == "K"), "\(context)")
            if let seconds = theirs.double("pts_time") {
                #expect(abs((ours.ptsTime ?? .nan) - seconds) <= max(1e-6, abs(seconds) * 1e-12), "\(context)")
            } else {
                #expect(ours.ptsTime == nil, "\(context)")
            }
        }
    }

    @Test func packetTableIsAlignedWithOneRowPerPacket() throws {
        let path = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        let r = Inspection.runRaw(["--packets", path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let reference = try FFprobe.packets(path)
        #expect(lines.prefix(5) == [
            "# stream 0: video h264, time base 1/1000", "# stream 1: audio aac, time base 1/1000",
            "# stream 2: audio aac, time base 1/1000", "# stream 3: subtitle subrip, time base 1/1000",
            "# stream 4: subtitle ass, time base 1/1000",
        ])
        let header = try #require(lines.dropFirst(5).first)
        let columns = ["stream", "type", "pts", "pts_time", "dts", "dts_time", "duration", "duration_time",
                       "size", "pos", "flags", "side_data"]
        #expect(header.split(separator: " ").map(String.init) == columns)
        let rows = Array(lines.dropFirst(6).dropLast())
        #expect(rows.count == reference.count)
        #expect(lines.last == "# \(reference.count) packets; end of file")
        // Right-aligned numbers end where their header ends; flags start where "flags" starts.
        let flagsColumn = try #require(header.range(of: "flags")).lowerBound.utf16Offset(in: header)
        let posEnd = try #require(header.range(of: " pos ")).upperBound.utf16Offset(in: header) - 1
        for (row, packet) in zip(rows, reference) {
            let fields = row.split(separator: " ").map(String.init)
            #expect(fields.count == 11, "\(row)")
            #expect(fields[0] == String(packet.int("stream_index") ?? -1))
            #expect(fields[2] == packet.int64("pts").map { String($0) } ?? "N/A")
            #expect(fields[3] == packet.string("pts_time") ?? "N/A")
            #expect(fields[8] == String(packet.int("size") ?? -1))
            #expect(fields[10].first == packet.string("flags")?.first)
            let utf16 = Array(row.utf16)
            #expect(utf16.count > flagsColumn && utf16[flagsColumn - 1] == 0x20 && utf16[flagsColumn] != 0x20, "\(row)")
            #expect(utf16[posEnd - 1] != 0x20 && utf16[posEnd] == 0x20, "\(row)")
        }
    }

    @Test func countDefaultsToAThousandAndSaysWhenItStops() throws {
        let dir = try Scratch()
        let path = dir.path("many-packets.mkv")
        // 20 s of 8 kHz audio in 10 ms packets: 2000 packets.
        let made = Process.run(["/usr/bin/env", "ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                "-i", "sine=r=8000:d=20:samples_per_frame=80", "-c:a", "pcm_s16le", path], timeout: 60)
        try #require(made.status == 0, "\(made.stderr)")
        let listing = try Inspection.run(["--packets", path])
        #expect(listing.packets.count == 1000)
        #expect(listing.end?.reason == .countLimit)
        let table = Inspection.runRaw(["--packets", path])
        #expect(table.stdout.hasSuffix("# 1000 packets; stopped at --count (--count all for the rest)\n"))
        let all = try Inspection.run(["--packets", "--count", "all", path])
        #expect(all.packets.count == 2000 && all.end?.reason == .endOfFile)
        let five = try Inspection.run(["--packets", "--count=5", path])
        #expect(five.packets.map(\.pts) == [0, 10, 20, 30, 40])
        let help = Process.run([TestEnvironment.binary, "probe", "--help"], timeout: 20).stdout
        #expect(help.contains("default 1000") && help.contains("JSON lines"))
    }

    @Test func streamsStartAndLengthBoundTheListing() throws {
        let path = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        let reference = try FFprobe.packets(path)

        let second = try Inspection.run(["--packets", "--count", "all", "--streams=a:1", path])
        #expect(second.streams.map(\.index) == [2])
        #expect(!second.packets.isEmpty && second.packets.allSatisfy { $0.stream == 2 })
        #expect(second.packets.count == reference.filter { $0.int("stream_index") == 2 }.count)

        let mixed = try Inspection.run(["--packets", "--count", "all", "--streams", "1,s", path])
        #expect(mixed.streams.map(\.index) == [1, 3, 4])
        #expect(Set(mixed.packets.map(\.stream)) == [1, 3, 4])

        let window = try Inspection.run(["--packets", "--count", "all", "--streams=v", "--start=2", "--length=0.5", path])
        let first = try #require(window.packets.first)
        #expect(first.isKey && first.ptsTime == 2.0, "reading starts at the keyframe at 2 s")
        #expect(window.packets.allSatisfy { ($0.dtsTime ?? 9) < 2.5 })
        #expect(window.packets.count == reference.filter {
            $0.int("stream_index") == 0 && (2.0..<2.5).contains($0.double("dts_time") ?? -1)
        }.count)
        #expect(window.end?.reason == .lengthLimit)

        let half = try Inspection.run(["--packets", "--count=1", "--streams=v", "--start=50%", path])
        #expect(half.packets.first?.ptsTime == 2.0, "50% of 4.03 s is after the keyframe at 2 s")
    }

    static let refusals: [([String], Int32, String)] = [
        (["--packets", "--streams=9"], 1, "no stream 9: the file has 5 streams (0–4)"),
        (["--frames", "--streams=a:2"], 1, "no stream a:2: the file has 2 audio streams"),
        (["--packets", "--streams=d"], 1, "no data stream in the file"),
    ]

    @Test(arguments: refusals)
    func selectionsTheFileCannotMeetGiveOneLine(arguments: [String], status: Int32, message: String) {
        let path = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        let r = Inspection.runRaw(arguments + [path])
        #expect(r.status == status)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "aether-tui: \(path): \(message)\n")
    }

    @Test func malformedOptionsAreUsageErrors() {
        let path = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        for arguments in [["--packets", "--streams=x"], ["--packets", "--count=0"], ["--packets", "--frames"],
                          ["--count=5"], ["--frames", "--read-timeout=0"], ["--packets", "--start=soon"]] {
            let r = Inspection.runRaw(arguments + [path])
            #expect(r.status == 1, "\(arguments): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }

    static let unreadable: [(String, String)] = [
        ("empty.mkv", "Invalid data found when processing input"),
        ("random.mkv", "Invalid data found when processing input"),
        ("does-not-exist.mkv", "No such file or directory"),
    ]

    @Test(arguments: unreadable)
    func unreadableInputGivesOneClearLine(file: String, message: String) {
        let path = file == "does-not-exist.mkv" ? "/nonexistent/\(file)" : TestEnvironment.fixture(file)
        for mode in ["--packets", "--frames"] {
            let r = Inspection.runRaw([mode, path])
            #expect(!r.timedOut)
            #expect(r.status == 1)
            #expect(r.stdout.isEmpty)
            #expect(r.stderr == "aether-tui: cannot open '\(path)': \(message)\n")
        }
    }

    // MARK: --frames

    @Test func framesOfInterlacedMPEG2MatchFFprobe() throws {
        let path = TestEnvironment.fixture("mpeg2-interlaced-mp2.ts")
        let listing = try Inspection.run(["--frames", "--count", "all", "--streams=v", path])
        let reference = try FFprobe.frames(path, streams: "v")
        #expect(listing.frames.count == reference.count && reference.count == 75)
        #expect(listing.errors.isEmpty)
        #expect(listing.end?.reason == .endOfFile)
        #expect(listing.frames.map(\.picture.pictureType) == reference.map { $0.string("pict_type") })
        #expect(Set(listing.frames.compactMap(\.picture.pictureType)) == ["I", "P", "B"])
        #expect(listing.frames.map(\.times.pts) == reference.map { $0.int64("pts") })
        #expect(listing.frames.map(\.times.bestEffort) == reference.map { $0.int64("best_effort_timestamp") })
        #expect(listing.frames.map(\.origin.position) == reference.map { $0.int64("pkt_pos") })
        #expect(listing.frames.map(\.isKey) == reference.map { $0.int("key_frame") == 1 })
        #expect(listing.frames.allSatisfy { $0.picture.isInterlaced && $0.picture.topFieldFirst })
        #expect(listing.frames.allSatisfy { $0.picture.width == 720 && $0.picture.height == 576 && $0.format == "yuv420p" })
        #expect(listing.frames.allSatisfy { $0.damage.decodeErrors.isEmpty })

        let table = Inspection.runRaw(["--frames", "--count=4", "--streams=v", path])
        let rows = table.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.dropFirst()
        #expect(rows.map { $0.split(separator: " ")[2] } == ["I", "B", "B", "P"])
        #expect(rows.allSatisfy { $0.contains("  tff  ") && $0.contains("720×576") })
    }

    @Test func audioFramesCarrySamplesRateAndLayout() throws {
        let path = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        let listing = try Inspection.run(["--frames", "--count", "all", "--streams=a:0", path])
        let reference = try FFprobe.frames(path, streams: "a:0")
        #expect(listing.frames.count == reference.count)
        #expect(listing.frames.allSatisfy {
            $0.stream == 1 && $0.kind == .audio && $0.picture.pictureType == nil && $0.samples.sampleRate == 48000
                && $0.samples.channels == 2 && $0.samples.channelLayout == "stereo" && $0.format == "fltp"
        })
        #expect(listing.frames.map(\.samples.sampleCount) == reference.map { $0.int("nb_samples") })
        #expect(listing.frames.map(\.times.pts) == reference.map { $0.int64("pts") })
    }

    @Test func everyAudioAndVideoStreamIsDecodedByDefaultAndOthersAreSaidToBeSkipped() throws {
        let path = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        let all = try Inspection.run(["--frames", "--count", "all", path])
        #expect(all.streams.map(\.index) == [0, 1, 2])
        #expect(Set(all.frames.map(\.stream)) == [0, 1, 2])
        #expect(all.skipped.isEmpty)
        let subtitles = try Inspection.run(["--frames", "--count", "all", "--streams=s", path])
        #expect(subtitles.skipped.map(\.stream) == [3, 4])
        #expect(subtitles.skipped.allSatisfy { $0.reason == "subtitle streams are not decoded by --frames" })
        #expect(subtitles.frames.isEmpty && subtitles.end?.reason == .endOfFile)
    }

    @Test func damagedFramesAreReportedAndDecodingGoesOnToTheEnd() throws {
        let path = TestEnvironment.fixture("damaged-h264.mkv")
        let listing = try Inspection.run(["--frames", "--count", "all", path])
        let end = try #require(listing.end)
        #expect(end.reason == .endOfFile)

        // 1.5 s: the packet the decoder rejects, reported with the packet it happened on.
        let rejected = try #require(listing.errors.first)
        #expect(listing.errors.count == 1)
        #expect(rejected.stream == 0 && rejected.function == "avcodec_send_packet")
        #expect(rejected.message == "Invalid data found when processing input")
        let packet = try #require(rejected.packet)
        #expect(packet.ptsTime == 1.5 && packet.position != nil && packet.size > 0)
        let damagedPacket = try FFprobe.packets(path).first { $0.int("stream_index") == 0 && $0.string("pts_time") == "1.500000" }
        #expect(packet.position == damagedPacket?.int64("pos"))

        // 2.5 s: decoded with concealment, flagged by the decoder.
        let video = listing.frames.filter { $0.stream == 0 }
        let concealed = video.filter(\.isDamaged)
        #expect(concealed.map(\.times.ptsTime) == [2.5])
        #expect(concealed.first?.damage.decodeErrors.contains("concealment-active") == true)
        #expect(end.damagedFrames == 1 && end.decodeErrors == 1)

        // And on to the end, in both streams, as ffprobe decodes it.
        #expect(video.last?.times.ptsTime == 3.958)
        #expect(video.count == (try FFprobe.frames(path, streams: "v")).count)
        #expect(listing.frames.filter { $0.stream == 1 }.count == (try FFprobe.frames(path, streams: "a")).count)
        #expect(video.contains { $0.times.ptsTime == 1.542 }, "the frame after the rejected packet decodes")

        let table = Inspection.runRaw(["--frames", "--count", "all", "--streams=v", path])
        #expect(table.status == 0)
        #expect(table.stdout.contains("  video     ERROR avcodec_send_packet: Invalid data found when processing input "
                                      + "(packet pts_time 1.500000, dts_time 1.500000, pos \(packet.position ?? -1), size \(packet.size), flags ___)"))
        #expect(table.stdout.contains("concealment-active"))
        #expect(table.stdout.hasSuffix("# 95 frames (1 damaged), 1 decode error, 96 packets read; end of file\n"))
    }

    @Test func encryptedPacketsAreNeverFedToADecoder() throws {
        let dir = try Scratch()
        let path = dir.path("cenc.mp4")
        let key = "00112233445566778899aabbccddeeff"
        let made = Process.run(["/usr/bin/env", "ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                "-i", TestEnvironment.fixture("damaged-h264.mkv"), "-map", "0:v", "-t", "1", "-c", "copy",
                                "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", key, "-encryption_kid", key, path],
                               timeout: 60)
        try #require(made.status == 0, "\(made.stderr)")
        let packets = try Inspection.run(["--packets", "--count", "all", path])
        #expect(!packets.packets.isEmpty && packets.packets.allSatisfy { $0.sideData == ["Encryption info"] })
        let frames = try Inspection.run(["--frames", "--count", "all", path])
        #expect(frames.frames.isEmpty && frames.errors.isEmpty)
        #expect(frames.skipped.map(\.reason) == ["the packets are encrypted (CENC or similar); not decoded"])
        #expect(frames.end?.reason == .endOfFile)
    }

    // MARK: hostile timestamps and stalls

    @Test func missingTimestampsDoNotTrap() throws {
        let path = TestEnvironment.fixture("nopts.h264")
        let packets = try Inspection.run(["--packets", "--count", "all", path])
        #expect(packets.packets.count == 48)
        #expect(packets.packets.allSatisfy { $0.pts == nil && $0.dts == nil && $0.ptsTime == nil })
        let frames = try Inspection.run(["--frames", "--count", "all", path])
        #expect(frames.frames.count == 48 && frames.errors.isEmpty)
        #expect(frames.frames.allSatisfy { $0.times.pts == nil && $0.times.ptsTime == nil && $0.picture.width == 320 })
        let table = Inspection.runRaw(["--frames", "--count=2", path])
        #expect(table.status == 0)
        #expect(table.stdout.contains("N/A"))
        for bounds in [["--start=1"], ["--length=1"]] {
            let r = Inspection.runRaw(["--packets"] + bounds + [path])
            #expect(r.status == 0 || r.status == 1, "\(bounds): \(r.status) \(r.stderr)")
        }
    }

    @Test func timestampsAtInt64LimitsDoNotTrap() throws {
        let path = TestEnvironment.fixture("extreme-timestamps.mkv")
        let packets = try Inspection.run(["--packets", "--count", "all", path])
        #expect(packets.packets.count == 12)
        #expect(packets.packets.contains { ($0.pts ?? 0) > 4_000_000_000_000_000_000 })
        #expect(packets.packets.contains { ($0.pts ?? 0) < -9_000_000_000_000_000_000 })
        let frames = try Inspection.run(["--frames", "--count", "all", path])
        #expect(frames.frames.count == 12 && frames.errors.isEmpty)
        #expect(frames.frames.map(\.times.pts) == packets.packets.map(\.pts))
        for extra in [["--start=1", "--length=1"], ["--start=1e300"], ["--length=1e300"], ["--start=99%"],
                      ["--length=100%"], ["--start=2562047788015:12:55.807"]] {
            for mode in ["--packets", "--frames"] {
                for output in [[], ["--json"]] {
                    let r = Inspection.runRaw([mode] + output + extra + [path])
                    #expect(r.status == 0 || r.status == 1, "\(mode) \(extra): status \(r.status) \(r.stderr)")
                }
            }
        }
        let window = try Inspection.run(["--packets", "--start=1", "--length=1", path])
        #expect(window.packets.map(\.pts) == [1000, 1050])
        #expect(window.end?.reason == .lengthLimit)
    }

    @Test func aStalledNetworkReadTimesOut() throws {
        let server = try StallingServer(serving: TestEnvironment.fixture("h264-720p.mkv"), bytes: 600_000)
        defer { server.stop() }
        let started = MonotonicTime.now()
        let r = Inspection.runRaw(["--packets", "--count", "all", "--json", "--read-timeout=2", server.url], timeout: 30)
        let elapsed = MonotonicTime.now() - started
        #expect(!r.timedOut)
        #expect(elapsed < 10, "took \(elapsed) s")
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("aether-tui: read timed out in '\(server.url)' after "), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        let listing = try Inspection.parse(r.stdout)
        #expect(listing.packets.count > 10)
        #expect(listing.end?.reason == .timedOut)
    }
}

// MARK: - helpers

/// A parsed `--json` listing.
struct Inspection {
    var streams: [InspectedStream] = []
    var packets: [PacketRecord] = []
    var frames: [FrameRecord] = []
    var errors: [DecodeErrorRecord] = []
    var skipped: [SkippedStream] = []
    var end: InspectionEnd?

    /// One JSON line: an object with exactly one key saying what it holds.
    enum Line: Decodable {
        case streams([InspectedStream]), packet(PacketRecord), frame(FrameRecord), error(DecodeErrorRecord)
        case skipped(SkippedStream), end(InspectionEnd)

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        struct Unexpected: Error { let keys: [String] }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            guard c.allKeys.count == 1, let key = c.allKeys.first else { throw Unexpected(keys: c.allKeys.map(\.stringValue)) }
            switch key.stringValue {
            case "streams": self = .streams(try c.decode([InspectedStream].self, forKey: key))
            case "packet": self = .packet(try c.decode(PacketRecord.self, forKey: key))
            case "frame": self = .frame(try c.decode(FrameRecord.self, forKey: key))
            case "error": self = .error(try c.decode(DecodeErrorRecord.self, forKey: key))
            case "skipped": self = .skipped(try c.decode(SkippedStream.self, forKey: key))
            case "end": self = .end(try c.decode(InspectionEnd.self, forKey: key))
            default: throw Unexpected(keys: [key.stringValue])
            }
        }
    }

    struct Malformed: Error, CustomStringConvertible { let description: String }

    static func parse(_ stdout: String) throws -> Inspection {
        var listing = Inspection()
        let lines = stdout.split(separator: "\n")
        for (n, line) in lines.enumerated() {
            let parsed = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            switch parsed {
            case .streams(let s):
                guard n == 0 else { throw Malformed(description: "streams on line \(n + 1)") }
                listing.streams = s
            case .packet(let p): listing.packets.append(p)
            case .frame(let f): listing.frames.append(f)
            case .error(let e): listing.errors.append(e)
            case .skipped(let s): listing.skipped.append(s)
            case .end(let e):
                guard n == lines.count - 1 else { throw Malformed(description: "end on line \(n + 1) of \(lines.count)") }
                listing.end = e
            }
        }
        guard listing.end != nil else { throw Malformed(description: "no end line") }
        return listing
    }

    /// `aether-tui probe --json ARGS`, expecting success.
    static func run(_ arguments: [String]) throws -> Inspection {
        let r = runRaw(["--json"] + arguments)
        #expect(r.status == 0, "probe \(arguments) exited \(r.status): \(r.stderr)")
        return try parse(r.stdout)
    }

    /// `aether-tui probe ARGS`; the output never carries a control character but newlines.
    static func runRaw(_ arguments: [String], timeout: Double = 60) -> ProcessResult {
        let r = Process.run([TestEnvironment.binary, "probe"] + arguments, timeout: timeout)
        #expect(!r.timedOut, "probe \(arguments) hung")
        #expect(r.status < 128, "probe \(arguments) died of signal \(r.status - 128)")
        #expect(!(r.stdout + r.stderr).unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F })
        return r
    }
}

/// ffprobe's own view of a file, for comparison.
enum FFprobe {
    struct Entry {
        let fields: [String: Any]
        func string(_ key: String) -> String? {
            switch fields[key] {
            case let s as String: return s
            case let n as NSNumber: return n.stringValue
            default: return nil
            }
        }
        /// ffprobe's JSON writes some numbers as strings (`size`, `pos`) and N/A as absence.
        func int64(_ key: String) -> Int64? { string(key).flatMap { Int64($0) } }
        func int(_ key: String) -> Int? { string(key).flatMap { Int($0) } }
        func double(_ key: String) -> Double? { string(key).flatMap { Double($0) } }
    }

    struct Failed: Error, CustomStringConvertible { let description: String }

    static func run(_ arguments: [String], section: String) throws -> [Entry] {
        let r = Process.run(["/usr/bin/env", "ffprobe", "-v", "error", "-of", "json"] + arguments, timeout: 60)
        guard r.status == 0, let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw Failed(description: "ffprobe \(arguments) failed: \(r.stderr)")
        }
        return (object[section] as? [[String: Any]] ?? []).map(Entry.init)
    }

    static func packets(_ path: String) throws -> [Entry] {
        try run(["-show_packets", path], section: "packets")
    }

    static func frames(_ path: String, streams: String) throws -> [Entry] {
        try run(["-show_frames", "-select_streams", streams, path], section: "frames")
    }
}

/// A temporary directory, removed when the value goes away.
final class Scratch {
    let url: URL
    init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("aether-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// An HTTP server on 127.0.0.1 that answers every request with the headers and the first `bytes`
/// of a file, then sends nothing more and keeps the connection open: a stalled network source.
final class StallingServer {
    let url: String
    private let process: Process
    private let scratch: Scratch

    /// Foundation's Process hands the test runner's blocked signal mask on to its child: the
    /// script unblocks signals first, and ends by itself after two minutes whatever happens.
    static let script = """
        import os, signal, socket, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        signal.alarm(120)
        data = open(sys.argv[1], "rb").read()
        part = data[: int(sys.argv[2])]
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(4)
        with open(sys.argv[3] + ".tmp", "w") as f:
            f.write(str(s.getsockname()[1]))
        os.rename(sys.argv[3] + ".tmp", sys.argv[3])
        held = []
        while True:
            c, _ = s.accept()
            c.recv(65536)
            c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: video/x-matroska\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(data) + part)
            held.append(c)
        """

    struct NotStarted: Error {}

    init(serving file: String, bytes: Int) throws {
        scratch = try Scratch()
        let scriptPath = scratch.path("stall.py"), portPath = scratch.path("port")
        try StallingServer.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptPath, file, String(bytes), portPath]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: String? = nil
        _ = waitUntil(10, interval: 0.02) {
            port = try? String(contentsOfFile: portPath, encoding: .utf8)
            return port != nil
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw NotStarted()
        }
        url = "http://127.0.0.1:\(port)/stalled.mkv"
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
