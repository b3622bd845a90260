import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `aether-tui download` through the real binary against a real HTTP server on loopback
/// (`range_http.py`) behind the suite's fault proxy: renditions and tags, AES-128, a drop
/// mid-segment, Ctrl-C and a second run, a tampered state directory, hostile playlists.
/// Outputs are checked with ffprobe and ffmpeg's framemd5 against the fixture's own playlists.
/// Media: `hls-download`, `hls-download-aes`, `hls-aes`, `hostile/download-*` of
/// `Tests/Fixtures/make-network-fixtures.sh`.
@Suite(.serialized) struct DownloadTests {
    static var root: String { NetworkTests.root }
    /// hls-download: 10 s at 24 fps.
    static let frameSeconds = 1.0 / 24

    /// A fresh empty directory for outputs; removed by the caller.
    static func scratch() throws -> String {
        let dir = NSTemporaryDirectory() + "aether-download-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func download(_ arguments: [String], timeout: Double = 60) -> ProcessResult {
        Process.run([TestEnvironment.binary, "download"] + arguments, timeout: timeout)
    }

    /// ffprobe's streams: type, codec, width, language, title, default flag.
    struct Stream: Equatable {
        var type = "", codec = "", width = 0, language = "", title = "", isDefault = false
    }

    static func streams(_ path: String) throws -> (streams: [Stream], duration: Double) {
        let r = Process.run(["/usr/bin/ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_format", path], timeout: 30)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
        let list = (json["streams"] as? [[String: Any]] ?? []).map { s -> Stream in
            let tags = s["tags"] as? [String: String] ?? [:]
            let disposition = s["disposition"] as? [String: Int] ?? [:]
            return Stream(type: s["codec_type"] as? String ?? "", codec: s["codec_name"] as? String ?? "", width: s["width"] as? Int ?? 0,
                          language: tags["language"] ?? "", title: tags["title"] ?? "", isDefault: disposition["default"] == 1)
        }
        let duration = Double((json["format"] as? [String: Any])?["duration"] as? String ?? "") ?? -1
        return (list, duration)
    }

    /// The MD5 of each decoded frame of `map` in `input` (ffmpeg's framemd5).
    static func frames(_ input: String, map: String) -> [String] {
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-i", input, "-map", map, "-f", "framemd5", "-"], timeout: 60)
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    static func source(_ path: String) -> String { root + "/" + path }

    /// Requests the proxy saw whose path matches `suffix` (and that were not cut).
    static func fetched(_ server: LoopbackHTTP, _ pattern: String) throws -> [[String: Any]] {
        try server.requests().filter { ($0["path"] as? String)?.range(of: pattern, options: .regularExpression) != nil }
    }

    static func count(_ word: String, in text: String) -> Int? {
        guard let range = text.range(of: #"(\d+) "# + word, options: .regularExpression) else { return nil }
        return Int(text[range].split(separator: " ")[0])
    }

    /// Runs `download arguments` writing `output`, waits until `files` segment files (init
    /// sections included) are in `output.part/` (at most `seconds`), runs `meanwhile`, then sends
    /// SIGINT: the files seen, the exit status, standard error and the seconds it took to stop.
    static func interrupted(_ arguments: [String], output: String, atFiles files: Int, within seconds: Double = 40,
                            meanwhile: () -> Void = {}) throws -> (onDisk: Int, status: Int32, stderr: String, stopSeconds: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.binary)
        process.arguments = ["download"] + arguments
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        var onDisk = 0
        _ = waitUntil(seconds, interval: 0.02) {
            guard process.isRunning else { return true }
            onDisk = ((try? FileManager.default.contentsOfDirectory(atPath: output + ".part")) ?? []).filter { $0.hasSuffix(".seg") }.count
            return onDisk >= files
        }
        meanwhile()
        let interruptedAt = Date()
        process.interrupt()  // SIGINT
        process.waitUntilExit()
        let stopSeconds = Date().timeIntervalSince(interruptedAt)
        let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = stdout.fileHandleForReading.readDataToEndOfFile()
        return (onDisk, process.terminationStatus, text, stopSeconds)
    }

    // MARK: what is fetched and written

    /// Subtitle renditions the download cannot write are left out, one note each, and the rest
    /// is written (issue 33, item 6): one named as MP4 fragments (left out before a byte of it is
    /// fetched), one named `.vtt` whose segments are TTML (left out when it is joined).
    @Test func subtitlesThatCannotBeWrittenAreLeftOutAndTheRestIsWritten() throws {
        let media = try LoopbackHTTP(root: Self.root)
        defer { media.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let show = media.url("hls-download/")
        var master = try String(contentsOfFile: Self.root + "/hls-download/master.m3u8", encoding: .utf8)
        master = master.replacingOccurrences(of: #"URI="English/"#, with: #"URI="\#(show)English/"#)
            .replacingOccurrences(of: #"URI="Francais/"#, with: #"URI="\#(show)Francais/"#)
            .replacingOccurrences(of: #"URI="2/index_vtt.m3u8""#, with: #"URI="\#(show)2/index_vtt.m3u8""#)
            .replacingOccurrences(of: "\n2/index.m3u8", with: "\n\(show)2/index.m3u8").replacingOccurrences(of: "\n3/index.m3u8", with: "\n\(show)3/index.m3u8")
        let firstVariant = try #require(master.range(of: "#EXT-X-STREAM-INF"))
        master.insert(contentsOf: """
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",DEFAULT=NO,LANGUAGE="deu",URI="de.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Italiano",DEFAULT=NO,LANGUAGE="ita",URI="it.m3u8"

            """, at: firstVariant.lowerBound)
        try master.write(toFile: dir + "/master.m3u8", atomically: true, encoding: .utf8)
        let vtt = try String(contentsOfFile: Self.root + "/hls-download/2/index_vtt.m3u8", encoding: .utf8)
        try vtt.replacingOccurrences(of: ".vtt", with: ".mp4").write(toFile: dir + "/de.m3u8", atomically: true, encoding: .utf8)
        try vtt.replacingOccurrences(of: "index", with: "ttml-index").write(toFile: dir + "/it.m3u8", atomically: true, encoding: .utf8)
        for k in 0..<5 {
            try #"<?xml version="1.0"?><tt xmlns="http://www.w3.org/ns/ttml"><body><div><p begin="0s" end="1s">Ciao</p></div></body></tt>"#
                .write(toFile: dir + "/ttml-index\(k).vtt", atomically: true, encoding: .utf8)
        }
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        // --list says what would be written and what is left out, fetching no segment.
        let listed = Self.download([server.url("master.m3u8"), "--list", "--hls-bitrate=300k", "--slang=all"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        // (The TTML named .vtt is only found out when joined.)
        #expect(lines.count == 5 && lines[0].hasPrefix("video  162 kb/s  5 segments  10.0 s  ")
                && lines[2].hasPrefix("subtitle  eng  \"English subtitles\"  5 segments") && lines[3].hasPrefix("subtitle  ita  \"Italiano\"")
                && lines[4].hasPrefix("left out: subtitles in 'deu' left out: its segments are not WebVTT"), "\(listed.stdout)")
        #expect(!(try server.requests()).contains { ($0["path"] as? String)?.contains("index") == true && ($0["path"] as? String)?.hasSuffix(".m3u8") == false },
                "--list fetched segments")
        let out = dir + "/show.mkv"
        let r = Self.download([server.url("master.m3u8"), "-o", out, "--hls-bitrate=300k", "--slang=all"])
        #expect(r.status == 0, "\(r.stderr)")
        let notes = r.stderr.split(separator: "\n").filter { $0.contains("note: ") }
        #expect(notes.count == 2, "\(r.stderr)")
        #expect(notes.contains { $0.contains("subtitles in 'deu' left out: its segments are not WebVTT ('index0.mp4'") }, "\(r.stderr)")
        #expect(notes.contains { $0.contains("subtitles in 'ita' left out: a subtitle segment is not WebVTT") }, "\(r.stderr)")
        #expect(!(try server.requests()).contains { ($0["path"] as? String)?.hasSuffix(".mp4") == true }, "the MP4 text was fetched")
        let (streams, _) = try Self.streams(out)
        #expect(streams.map(\.type) == ["video", "audio", "subtitle"] && streams.last?.language == "eng", "\(streams)")
    }

    @Test func oneVariantOneFrenchAudioOneEnglishSubtitleWithTheirTags() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/show.mkv"
        let started = Date()
        let r = Self.download([server.url("hls-download/master.m3u8"), "-o", out, "--hls-bitrate=300k", "--alang=fra", "--slang=eng",
                               "--http-header-fields", "X-Aether-Test: dl-1", "--user-agent", "aether-test/dl", "--referrer", "http://ref.example/"])
        let seconds = Date().timeIntervalSince(started)
        // Headers, user agent and referrer on every request: playlists, segments, subtitles.
        for request in try server.requests() {
            let headers = request["headers"] as? [String: String] ?? [:]
            #expect(headers["X-Aether-Test"] == "dl-1" && headers["User-Agent"] == "aether-test/dl" && headers["Referer"] == "http://ref.example/",
                    "\(request["path"] ?? "?"): \(headers)")
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        // Only the chosen playlists and segments were fetched.
        let paths = try server.requests().compactMap { $0["path"] as? String }
        #expect(paths.allSatisfy { $0 == "/hls-download/master.m3u8" || $0.hasPrefix("/hls-download/2/") || $0.hasPrefix("/hls-download/Francais/") },
                "\(paths)")
        #expect(paths.filter { $0.hasPrefix("/hls-download/2/seg") }.count == 5)
        #expect(paths.filter { $0.hasPrefix("/hls-download/Francais/seg") }.count == 6)
        #expect(paths.filter { $0.hasSuffix(".vtt") }.count == 5)
        #expect(!paths.contains { $0.contains("/3/") || $0.contains("English/") })

        let (streams, duration) = try Self.streams(out)
        #expect(streams == [
            Stream(type: "video", codec: "h264", width: 160, isDefault: true),
            Stream(type: "audio", codec: "aac", language: "fra", title: "Français", isDefault: true),
            Stream(type: "subtitle", codec: "webvtt", language: "eng", title: "English subtitles", isDefault: true),
        ])
        let (_, sourceDuration) = try Self.streams(Self.source("hls-download/master.m3u8"))
        #expect(abs(duration - sourceDuration) <= 2 * Self.frameSeconds, "\(duration) s against the source's \(sourceDuration) s")
        // The frame rate as `ffmpeg -c copy` carries it (#62 item 16: it was 293/12, estimated
        // from the Matroska file's millisecond timestamps without a DefaultDuration).
        func rate(_ path: String) -> String {
            Process.run(["/usr/bin/ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0", path],
                        timeout: 20).stdout.split(separator: "\n").first.map(String.init) ?? ""   // (a playlist's stream is listed twice)
        }
        #expect(rate(out) == "24/1" && rate(out) == rate(Self.source("hls-download/2/index.m3u8")), "\(rate(out))")
        // Remuxed, not re-encoded: every decoded frame is the source's.
        let video = Self.frames(out, map: "0:v")
        #expect(video.count == 240)
        #expect(video == Self.frames(Self.source("hls-download/2/index.m3u8"), map: "0:v"))
        #expect(Self.frames(out, map: "0:a") == Self.frames(Self.source("hls-download/Francais/index.m3u8"), map: "0:a"))
        // The cues on the media's timeline (ffmpeg wrote them 22 ms late; the video's first frame is 21 ms in).
        let cues = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-i", out, "-map", "0:s", "-f", "webvtt", "-"], timeout: 30).stdout
        #expect(cues.contains("00:01.022 --> 00:02.522\nFirst cue") && cues.contains("Third cue"), "\(cues)")
        // Progress with stdout a pipe: plain lines, no carriage returns or escapes, names clean.
        let lines = r.stdout.split(separator: "\n")
        #expect(!r.stdout.contains("\r") && !r.stdout.contains("\u{1B}"))
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("download: ") } && lines.last?.hasPrefix("wrote ") == true, "\(r.stdout)")
        #expect(lines.dropLast().last?.contains("100%") == true && lines.dropLast().last?.contains("16/16 segments") == true, "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out + ".part"), "the state directory is removed at the end")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["show.mkv"])
        // It plays end to end in the player itself.
        let (played, summaries) = try PlayerRuns.headless([out, "--speed=4"], timeout: 40)
        #expect(played.status == 0, "\(played.stderr)")
        let summary = try #require(summaries.first)
        #expect(summary.endedEarly == nil && summary.frames.decoded == 240, "decoded \(summary.frames.decoded)")
        let bytes = (try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        print("download: \(bytes) bytes in \(String(format: "%.2f", seconds)) s (process) — \(r.stdout.split(separator: "\n").last ?? "")")
    }

    @Test func byDefaultTheTopVariantAndTheDefaultRenditions() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/show.mkv"
        let r = Self.download([server.url("hls-download/master.m3u8"), "-o", out, "--alang=all"])
        #expect(r.status == 0, "\(r.stderr)")
        let (streams, _) = try Self.streams(out)
        #expect(streams.map(\.type) == ["video", "audio", "audio", "subtitle"])
        #expect(streams[0].width == 320)
        #expect(streams[1].language == "eng" && streams[1].isDefault && streams[2].language == "fra" && !streams[2].isDefault)
        #expect(Self.frames(out, map: "0:v") == Self.frames(Self.source("hls-download/3/index.m3u8"), map: "0:v"))
    }

    @Test func mp4WhenTheNameEndsInMp4() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/show.MP4"
        let r = Self.download([server.url("hls-download/master.m3u8"), "-o", out, "--alang=fra"])
        #expect(r.status == 0, "\(r.stderr)")
        let format = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", out]).stdout
        #expect(format.contains("mp4"), "\(format)")
        let (streams, _) = try Self.streams(out)
        // WebVTT becomes mov_text (MP4's text subtitles), on the same timeline.
        #expect(streams.map(\.type) == ["video", "audio", "subtitle"])
        #expect(streams[1].language == "fra" && streams[1].isDefault)
        #expect(streams[2].codec == "mov_text" && streams[2].language == "eng" && streams[2].isDefault)
        let handlers = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "stream_tags=handler_name", "-of", "csv=p=0", out]).stdout
        #expect(handlers.contains("Français") && handlers.contains("English subtitles"), "\(handlers)")
        let cues = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-i", out, "-map", "0:s", "-f", "webvtt", "-"], timeout: 30).stdout
        #expect(cues.contains("00:01.022 --> 00:02.522\nFirst cue") && cues.contains("00:06.522 --> 00:07.522\nThird cue"), "\(cues)")
        #expect(Self.frames(out, map: "0:a") == Self.frames(Self.source("hls-download/Francais/index.m3u8"), map: "0:a"))
    }

    // MARK: AES-128

    @Test func encryptedVariantsDecryptWithTheSequenceNumberOrTheGivenIV() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // No IV attribute: each segment's media sequence number is its IV.
        let r = Self.download([server.url("hls-download-aes/master.m3u8"), "-o", dir + "/a.mkv", "--alang=eng"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.frames(dir + "/a.mkv", map: "0:v") == Self.frames(Self.source("hls-download/3/index.m3u8"), map: "0:v"))
        #expect(Self.frames(dir + "/a.mkv", map: "0:a") == Self.frames(Self.source("hls-download/English/index.m3u8"), map: "0:a"))
        // The key was fetched once, over HTTP.
        #expect(try Self.fetched(server, #"enc\.key$"#).count == 1)
        // IV=0x… given, a media playlist alone (its sound muxed in): progressive.mp4's frames.
        let e = Self.download([server.url("hls-aes/index.m3u8"), "-o", dir + "/b.mkv"])
        #expect(e.status == 0, "\(e.stderr)")
        let (streams, _) = try Self.streams(dir + "/b.mkv")
        #expect(streams.map(\.type) == ["video", "audio"])
        #expect(Self.frames(dir + "/b.mkv", map: "0:v") == Self.frames(Self.source("progressive.mp4"), map: "0:v"))
    }

    @Test func fragmentedMP4SegmentsWithAnInitSection() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Self.download([server.url("hls-download-fmp4/index.m3u8"), "-o", dir + "/f.mkv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.fetched(server, #"init\.mp4$"#).count == 1)
        let source = Self.source("hls-download-fmp4/index.m3u8")
        let video = Self.frames(dir + "/f.mkv", map: "0:v")
        #expect(video.count == 144)
        #expect(video == Self.frames(source, map: "0:v"))
        #expect(Self.frames(dir + "/f.mkv", map: "0:a") == Self.frames(source, map: "0:a"))
    }

    @Test func byteRangesOfOneFileWithARangedInitSection() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Self.download([server.url("hls-download-ranges/index.m3u8"), "-o", dir + "/r.mkv"])
        #expect(r.status == 0, "\(r.stderr)")
        // One request per range, each from its offset (the init section's from 0).
        let starts = try Self.fetched(server, #"index\.m4s$"#).map(NetworkTests.rangeStart)
        let playlist = try String(contentsOfFile: Self.source("hls-download-ranges/index.m3u8"), encoding: .utf8)
        let offsets = [0] + playlist.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-BYTERANGE:") }.compactMap { Int($0.split(separator: "@").last ?? "") }
        #expect(starts == offsets, "\(starts) against \(offsets)")
        let source = Self.source("hls-download-fmp4/index.m3u8")
        #expect(Self.frames(dir + "/r.mkv", map: "0:v") == Self.frames(source, map: "0:v"))
        #expect(Self.frames(dir + "/r.mkv", map: "0:a") == Self.frames(source, map: "0:a"))
    }

    // MARK: the network

    @Test func aDropMidSegmentResumesAtTheByte() throws {
        let drop = 20_000
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "/3/seg002\\.ts$", "times": 1, "drop_after": \#(drop)}]"#)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Self.download([server.url("hls-download/master.m3u8"), "-o", dir + "/d.mkv", "--slang=no"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.count("retries", in: r.stdout) == 1, "\(r.stdout)")
        let requests = try Self.fetched(server, #"/3/seg002\.ts$"#)
        #expect(requests.count == 2 && (requests[0]["cut"] as? Bool) == true, "\(requests)")
        let resumedAt = NetworkTests.rangeStart(requests[1])
        #expect(resumedAt > 0 && resumedAt <= drop, "resumed at \(resumedAt), dropped after \(drop)")
        #expect(Self.frames(dir + "/d.mkv", map: "0:v") == Self.frames(Self.source("hls-download/3/index.m3u8"), map: "0:v"))
    }

    @Test func aFailureThatOutlastsTheRetriesIsOneLine() throws {
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "/3/seg001\\.ts$", "status": 503}]"#)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Self.download([server.url("hls-download/master.m3u8"), "-o", dir + "/f.mkv", "--network-retries=2"])
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("gave up after 2 retries"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/f.mkv"))
        #expect(FileManager.default.fileExists(atPath: dir + "/f.mkv.part/state"), "what was fetched is kept")
    }

    // MARK: interrupt and resume

    @Test func ctrlCMidwayThenASecondRunFinishesIdenticallyFetchingTheRestOnly() throws {
        // The segments go one after another: the video's five, the French audio's six, the
        // subtitles' five. The audio's fourth, the ninth file, stalls until the client goes, so
        // the first run is still going with eight on disk however long the interrupt takes
        // (throttled, a loaded CI machine let it finish before its interrupt).
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "Francais/seg003\\.ts$", "stall_after": 0, "stall_seconds": 1e9}]"#)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/r.mkv"
        let arguments = [server.url("hls-download/master.m3u8"), "-o", out, "--alang=fra"]
        // Interrupt at half: 8 of the 16 segments on disk. A second download into the same
        // output meanwhile is refused (the part directory is locked).
        var rival: ProcessResult?
        let (onDisk, status, firstErr, stopSeconds) = try Self.interrupted(arguments, output: out, atFiles: 8, within: 30) {
            rival = Self.download(arguments)
        }
        #expect(rival?.status == 1 && rival?.stderr.contains("another download is writing") == true, "\(rival?.stderr ?? "")")
        #expect(onDisk == 8, "\(onDisk) segments on disk at the interrupt")
        #expect(status == 4, "\(firstErr)")
        #expect(firstErr.contains("interrupted") && firstErr.split(separator: "\n").count == 1, "\(firstErr)")
        #expect(stopSeconds < 2, "took \(stopSeconds) s to stop")
        #expect(!FileManager.default.fileExists(atPath: out))
        let firstSegments = try Self.fetched(server, #"\.(ts|vtt)$"#).filter { ($0["cut"] as? Bool) != true }.count

        try server.setRules("[]")
        try server.clearRequests()
        let second = Self.download(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        let kept = Self.count("kept", in: second.stdout) ?? -1
        // (The first run's cut request may be logged late, when the proxy sees the client gone.)
        let fetchedAgain = try Self.fetched(server, #"\.(ts|vtt)$"#).filter { ($0["cut"] as? Bool) != true }.count
        #expect(kept == 8 && firstSegments == 8, "kept \(kept) of \(firstSegments): \(second.stdout)")
        #expect(fetchedAgain == 8, "kept \(kept), fetched \(fetchedAgain) of 16")
        // The same bytes as a download that was never interrupted.
        let clean = Self.download([server.url("hls-download/master.m3u8"), "-o", dir + "/clean.mkv", "--alang=fra"])
        #expect(clean.status == 0)
        #expect(FileManager.default.contentsEqual(atPath: out, andPath: dir + "/clean.mkv"), "the resumed output differs")
        print("download resume: interrupted with \(onDisk) segments on disk (stopped in \(String(format: "%.2f", stopSeconds)) s); second run kept \(kept), fetched \(fetchedAgain)")
    }

    @Test func aTamperedStateDirectoryIsCheckedNotTrusted() throws {
        // A first run that fails at the French audio's fourth segment leaves a state behind.
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "Francais/seg003\\.ts$", "status": 404}]"#)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/t.mkv", part = out + ".part"
        let arguments = [server.url("hls-download/master.m3u8"), "-o", out, "--alang=fra"]
        #expect(Self.download(arguments).status == 1)
        try server.setRules("[]")
        #expect(Self.download([server.url("hls-download/master.m3u8"), "-o", dir + "/clean.mkv", "--alang=fra"]).status == 0)

        // A segment with other bytes of the same size, one replaced by a link to /etc/passwd.
        let fm = FileManager.default
        let one = part + "/t0-1.seg"
        let size = (try fm.attributesOfItem(atPath: one)[.size] as? Int) ?? 0
        try Data(repeating: 0x47, count: size).write(to: URL(fileURLWithPath: one))
        try fm.removeItem(atPath: part + "/t0-2.seg")
        try fm.createSymbolicLink(atPath: part + "/t0-2.seg", withDestinationPath: "/etc/passwd")
        let r = Self.download(arguments)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("2 segment(s) on disk did not check out"), "\(r.stderr)")
        #expect(fm.contentsEqual(atPath: out, andPath: dir + "/clean.mkv"))
        try fm.removeItem(atPath: out)

        // A journal that is not one: not used, started over.
        try server.setRules(#"[{"path": "Francais/seg003\\.ts$", "status": 404}]"#)
        #expect(Self.download(arguments).status == 1)
        try server.setRules("[]")
        try Data("aether-tui download state 1\nplan x\ndone 0 0 5 ../../../etc/passwd\n".utf8).write(to: URL(fileURLWithPath: part + "/state"))
        let g = Self.download(arguments)
        #expect(g.status == 0, "\(g.stderr)")
        #expect(g.stderr.contains("state was not used"), "\(g.stderr)")
        #expect(Self.count("kept", in: g.stdout) == 0)
        #expect(fm.contentsEqual(atPath: out, andPath: dir + "/clean.mkv"))
        try fm.removeItem(atPath: out)

        // The state directory a link elsewhere, or a directory that is not a download's: refused.
        let elsewhere = try Self.scratch()
        defer { try? fm.removeItem(atPath: elsewhere) }
        try fm.createSymbolicLink(atPath: part, withDestinationPath: elsewhere)
        let l = Self.download(arguments)
        #expect(l.status == 1 && l.stderr.contains("not a directory"), "\(l.stderr)")
        #expect(try fm.contentsOfDirectory(atPath: elsewhere).isEmpty)
        try fm.removeItem(atPath: part)
        try fm.createDirectory(atPath: part, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: part + "/notes.txt"))
        let n = Self.download(arguments)
        #expect(n.status == 1 && n.stderr.contains("holds no download state"), "\(n.stderr)")
        #expect(fm.fileExists(atPath: part + "/notes.txt"))
        // An existing output is never overwritten.
        let x = Self.download([server.url("hls-download/master.m3u8"), "-o", dir + "/clean.mkv"])
        #expect(x.status == 1 && x.stderr.contains("exists"), "\(x.stderr)")
    }

    // MARK: hostile playlists

    @Test func remotePlaylistsNamingLocalFilesAreRefused() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cases = [("hostile/passwd.m3u8", "refused 'file:///etc/passwd'"), ("hostile/passwd-master.m3u8", "refused 'file:///etc/passwd'"),
                     ("hostile/download-local-audio.m3u8", "refused 'file:///etc/passwd'"),
                     ("hostile/download-local-key.m3u8", "refused 'file:///etc/passwd'"),
                     ("hostile/download-absolute.m3u8", "404")]
        for (playlist, reason) in cases {
            try server.clearRequests()
            let r = Self.download([server.url(playlist), "-o", dir + "/h.mkv"])
            #expect(r.status == 1, "\(playlist)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(reason), "\(playlist): \(r.stderr)")
            #expect(!r.stdout.contains("root:"), "\(playlist)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "\(playlist) left files")
            // Refused before any segment was asked for (the absolute path is asked of the server, which has none).
            let segments = try Self.fetched(server, #"\.ts$"#)
            #expect(segments.isEmpty, "\(playlist): \(segments)")
        }
        for source in ["file:///etc/passwd", "/etc/passwd", "pipe:0", server.url("progressive.mp4")] {
            let r = Self.download([source, "-o", dir + "/h.mkv"])
            #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1, "\(source): \(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func segmentNamesWithDotDotNeverBecomePaths() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: Self.root + "/hls-download/3")) ?? [])
        let r = Self.download([server.url("hostile/download-dotdot.m3u8"), "-o", dir + "/x.mkv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["x.mkv"])
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: Self.root + "/hls-download/3")) ?? []) == before)
        let paths = try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasSuffix(".ts") }
        #expect(paths == (0..<5).map { "/hls-download/3/seg00\($0).ts" }, "\(paths)")
        #expect(Self.frames(dir + "/x.mkv", map: "0:v") == Self.frames(Self.source("hls-download/3/index.m3u8"), map: "0:v"))
    }

    @Test func namesFromThePlaylistAreSanitisedInTheProgressAndTheTags() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Self.download([server.url("hostile/download-escapes.m3u8"), "-o", dir + "/n.mkv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\u{07}") && !r.stdout.contains("\u{202E}"), "\(r.stdout.debugDescription)")
        let (streams, _) = try Self.streams(dir + "/n.mkv")
        #expect(streams.count == 2)
        let title = streams.last?.title ?? ""
        #expect(title.contains("Evil") && !title.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" }, "\(title.debugDescription)")
        #expect(streams.last?.language == "", "a tag that is not a language is left out")
    }

    @Test func onATerminalTheProgressIsOneLineRedrawn() throws {
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "\\.ts$", "latency_ms": 30}]"#)
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // script(1) gives the command a pseudo-terminal for its standard output.
        let command = [TestEnvironment.binary, "download", server.url("hls-download/master.m3u8"), "-o", dir + "/p.mkv"]
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let r = Process.run(["/usr/bin/script", "-qfec", command, "/dev/null"], timeout: 60)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("\r[") && r.stdout.contains("\u{1B}[K"), "\(r.stdout.debugDescription)")
        #expect(r.stdout.contains("[########################] 100%"), "\(r.stdout.debugDescription)")
        #expect(!r.stdout.contains("download: "), "no plain lines on a terminal")
    }

    @Test func badArgumentsAreOneLine() throws {
        for arguments in [["http://127.0.0.1:1/x.m3u8", "--hls-bitrate=auto"], ["http://127.0.0.1:1/x.m3u8", "--video-range=4k"],
                          ["http://127.0.0.1:1/x.m3u8", "--network-retries=-1"]] {
            let r = Self.download(arguments)
            // ArgumentParser's usage follows the one line, as for every subcommand.
            #expect(r.status == 1, "\(arguments)")
            // Our check's line ("Error: --hls-bitrate must be…") or ArgumentParser's for a value
            // its type refuses ("Error: The value '4k' is invalid for '--video-range …'"): either
            // names the option on the first line.
            let option = try #require(arguments.last?.split(separator: "=").first.map(String.init))
            let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.hasPrefix("Error: ") && first.contains(option), "\(arguments): \(r.stderr)")
        }
    }
}
