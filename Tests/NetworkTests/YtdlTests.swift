import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Page URLs through yt-dlp (`--ytdl`), offline: a page on a loopback server whose `<video>`
/// has separate video and audio `<source>`s, read by yt-dlp's generic (HTML5) extractor. Only
/// the loopback server is ever asked for anything.
@Suite(.serialized) struct YtdlTests {
    /// A directory with the page, a page with no media, and the two media files (faststart MP4
    /// and M4A, remuxed from the fixtures with the ffmpeg CLI).
    static let site: String = {
        // One place per test process (test.sh runs suites in processes side by side, and
        // AudioFileTests serves this site too: a shared place was rewritten under a reader). The
        // places of processes that have ended are removed, so runs leave no trail of copies.
        let temporary = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        where name.hasPrefix("aether-ytdl-site-") {
            if let pid = Int32(name.dropFirst("aether-ytdl-site-".count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: temporary + name)
            }
        }
        let dir = temporary + "aether-ytdl-site-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let ff = ["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-y"]
        _ = Process.run(ff + ["-i", TestEnvironment.fixture("video-only.mkv"), "-c", "copy", "-movflags", "+faststart", dir + "/v.mp4"], timeout: 60)
        _ = Process.run(ff + ["-i", TestEnvironment.fixture("tones-stepped.mka"), "-c:a", "aac", "-movflags", "+faststart", dir + "/a.m4a"], timeout: 60)
        let page = """
            <html><head><title>Loopback page</title></head><body>
            <video controls><source src="v.mp4" type='video/mp4; codecs="avc1.64000d"'><source src="a.m4a" type='audio/mp4; codecs="mp4a.40.2"'></video>
            </body></html>
            """
        try? page.write(toFile: dir + "/page.html", atomically: true, encoding: .utf8)
        // A page that links an HLS master (a copy of the network fixtures' hls-vod, 6 MB: the
        // server serves nothing outside its root).
        let hls = (TestEnvironment.fixture("net/hls-vod/master.m3u8") as NSString).deletingLastPathComponent
        try? FileManager.default.removeItem(atPath: dir + "/hls")
        try? FileManager.default.copyItem(atPath: hls, toPath: dir + "/hls")
        try? "<html><head><title>HLS page</title></head><body><video controls><source src=\"hls/master.m3u8\" type=\"application/x-mpegURL\"></video></body></html>"
            .write(toFile: dir + "/page-hls.html", atomically: true, encoding: .utf8)
        // Two videos on one page: yt-dlp's generic extractor answers a playlist.
        try? "<html><head><title>Two clips</title></head><body><video controls><source src=\"v.mp4\" type=\"video/mp4\"></video><video controls><source src=\"a.m4a\" type=\"audio/mp4\"></video></body></html>"
            .write(toFile: dir + "/two.html", atomically: true, encoding: .utf8)
        try? "<html><head><title>Nothing</title></head><body>no media here</body></html>".write(toFile: dir + "/empty.html", atomically: true, encoding: .utf8)
        return dir
    }()

    static func lines(_ r: ProcessResult) -> [String] { r.stderr.split(separator: "\n").map(String.init) }

    /// `-f 0+1` (with yt-dlp's `--video-multistreams`: the generic extractor names no video
    /// codec, so yt-dlp would not otherwise pair the two): the video plays with the separate
    /// audio (the audio clock runs), both fetched with yt-dlp's headers.
    @Test func aPageWithSeparateVideoAndAudioPlaysBoth() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        let (r, s) = try PlayerRuns.headless([server.url("page.html"), "--ytdl-format=0+1",
                                                        "--ytdl-raw-options=video-multistreams=", "--length=2"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(abs(summary.mediaSeconds - 2) < 0.3, "played \(summary.mediaSeconds) s")
        #expect(summary.frames.presented >= 40)
        #expect(summary.sync.clockSource == "audio", "the audio file did not play: \(summary.sync.clockSource)")
        #expect(summary.audio.device == "null")
        let requests = try server.requests()
        for file in ["/v.mp4", "/a.m4a"] {
            let got = requests.filter { ($0["path"] as? String) == file }
            #expect(!got.isEmpty, "\(file) never fetched")
            for request in got {
                let headers = request["headers"] as? [String: String] ?? [:]
                #expect(headers["Referer"] == server.url("page.html"), "\(file) without yt-dlp's Referer: \(headers)")
            }
        }
    }

    /// In the engine: the page's title is the media's (media-title, MPRIS and the chrome read
    /// `MediaInfo.title`), and its separate audio is an external audio track, playing.
    @Test func thePagesTitleAndAudioReachTheEngine() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.ytdl.format = "0+1"
        o.ytdl.rawOptions = [("video-multistreams", "")]
        let player = Player()
        defer { player.stop() }
        try player.load(url: server.url("page.html"), options: o)
        let info = try #require(player.mediaInfo)
        #expect(info.title == "Loopback page (1)", "\(info.title ?? "nil")")
        #expect(info.audio.count == 1 && info.audio.first?.externalFile == server.url("a.m4a"), "\(info.audio)")
        #expect(player.activeAudioTrack == 0)
        #expect(info.video.count == 1)
    }

    /// yt-dlp's own choice (one format): its `url` plays.
    @Test func aPageWithOneChosenFormatPlays() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        let (r, s) = try PlayerRuns.headless([server.url("page.html"), "--ytdl-format=0", "--length=1"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.frames.presented >= 20 } == true, "\(s)")
    }

    /// A page whose `<source>` is an HLS master: yt-dlp reads the master and names a variant's
    /// playlist, which plays through the HLS path.
    @Test func aPageLinkingAnHLSManifestPlays() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        let (r, s) = try PlayerRuns.headless([server.url("page-hls.html"), "--length=2"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.frames.presented >= 40 && summary.sync.clockSource == "audio", "\(summary.frames.presented) \(summary.sync.clockSource)")
        let paths = try server.requests().compactMap { $0["path"] as? String }
        #expect(paths.contains { $0.hasPrefix("/hls/") && $0.hasSuffix(".ts") }, "\(paths)")
    }

    /// A page where yt-dlp finds several videos plays them as a playlist (mpv's way; refused
    /// before), each entry with its title.
    @Test func aPageOfSeveralVideosPlaysAsAPlaylist() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        let (r, s) = try PlayerRuns.headless([server.url("two.html"), "--length=1"], timeout: 90)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.count == 2, "\(s.map { $0.item.source ?? "?" })")
        #expect(s.first?.item.source == server.url("v.mp4") && s.last?.item.source == server.url("a.m4a"), "\(s.map { $0.item.source ?? "?" })")
        #expect(s.first.map { $0.frames.presented >= 20 } == true)
    }

    @Test func aPageWithoutMediaIsOneLineAndFails() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        let (r, _) = try PlayerRuns.headless([server.url("empty.html"), "--length=1"], timeout: 60)
        #expect(r.status != 0)
        #expect(Self.lines(r).count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("not media, and yt-dlp found none"), "\(r.stderr)")
    }

    /// `--ytdl=no`: the URL is tried as media only (yt-dlp never asks for the page).
    @Test func ytdlNoTriesTheURLAsMediaOnly() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        let (r, _) = try PlayerRuns.headless([server.url("page.html"), "--ytdl=no", "--length=1"], timeout: 60)
        #expect(r.status != 0)
        #expect(Self.lines(r).count == 1 && r.stderr.contains("Invalid data found"), "\(r.stderr)")
        let agents = try server.requests().compactMap { ($0["headers"] as? [String: String])?["User-Agent"] }
        #expect(!agents.contains { $0.contains("Mozilla") }, "yt-dlp fetched the page: \(agents)")
    }

    @Test func withoutYtdlOnPathTheErrorIsOneLine() throws {
        let server = try LoopbackHTTP(root: Self.site)
        defer { server.stop() }
        let (r, _) = try PlayerRuns.headless([server.url("page.html"), "--length=1"],
                                                      environment: ["PATH": "/nonexistent"], timeout: 60)
        #expect(r.status != 0)
        #expect(Self.lines(r) == ["aether-tui: cannot open '\(server.url("page.html"))': not media, and yt-dlp is not installed to read the page (install yt-dlp, or --ytdl=no)"],
                "\(r.stderr)")
    }

    /// Hostile option values: one line each, before anything runs.
    @Test func badYtdlOptionValuesAreOneLine() {
        for (argument, says) in [("--ytdl=maybe", "The value 'maybe' is invalid for '--ytdl <yes|no>'"),
                                 ("--ytdl-raw-options=exec=rm -rf /", "'exec' is refused"),
                                 ("--ytdl-raw-options=--flag=1", "is not an option name"),
                                 ("--ytdl-raw-options=\(String(repeating: "x=1,", count: 40))", "more than 32 options"),
                                 ("--ytdl-format=\u{1B}[2J", "--ytdl-format: expected"),
                                 ("--ytdl-format=-x", "--ytdl-format: expected")] {
            let r = Process.run([TestEnvironment.binary, "http://127.0.0.1:9/x", argument, "--vo=null", "--ao=null"], timeout: 15)
            #expect(r.status != 0, "\(argument)")
            // ArgumentParser's one error line (then its usage hint).
            #expect(Self.lines(r).first.map { $0.contains(says) } == true, "\(argument): \(r.stderr)")
            #expect(!r.stderr.contains("\u{1B}"), "\(argument): an escape reached the terminal")
        }
    }
}
