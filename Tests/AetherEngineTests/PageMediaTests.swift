import AetherEngine
@testable import AetherMedia
@testable import AetherStreaming
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// yt-dlp's `-J` answer read as hostile input, and the `--ytdl-*` option checks.
struct PageMediaTests {
    func parse(_ text: String) throws(PageError) -> PageMedia { try PageMedia.parse(Array(text.utf8)) }

    @Test func separateVideoAndAudio() throws {
        let page = try parse("""
            {"title": "A \\u001b[31mtitle\\u202e", "requested_formats": [
              {"url": "https://h/v.mp4", "vcodec": "avc1", "acodec": "none", "http_headers": {"User-Agent": "UA", "X-Bad": "1\\r\\nEvil: 2", "Bad Name": "x"}},
              {"url": "https://h/a.m4a", "vcodec": "none", "acodec": "mp4a.40.2"}],
             "chapters": [{"start_time": 5, "end_time": 9, "title": "Two"}, {"start_time": 0, "end_time": 5, "title": "One"},
                          {"start_time": 1e300, "end_time": 2e300}, {"start_time": -1, "end_time": 2}, {"start_time": "0"}]}
            """)
        #expect(page.url == "https://h/v.mp4")
        #expect(page.audioURL == "https://h/a.m4a")
        #expect(page.headers == ["User-Agent": "UA"])
        #expect(page.title == "A title")
        #expect(page.chapters.map(\.title) == ["One", "Two"])
        #expect(page.chapters.map(\.start) == [0, 5])
    }

    @Test func oneFormat() throws {
        let page = try parse(#"{"url": "http://127.0.0.1/x.m3u8", "title": "T"}"#)
        #expect(page.url == "http://127.0.0.1/x.m3u8" && page.audioURL == nil && page.title == "T")
    }

    /// A playlist answer: its entries with http(s) URLs and clean titles; the others left out.
    @Test func aPlaylistAnswerNamesItsEntries() throws {
        let text = #"{"_type": "playlist", "title": "Two\u001b[2J clips", "entries": [{"url": "http://h/a.mp4", "title": "One"}, "#
            + #"{"url": "file:///etc/passwd"}, {"webpage_url": "https://h/watch?v=2", "title": "Two\u202e"}, 5, {"url": "http://h/\u2028b"}]}"#
        guard case .playlist(let list) = try PageAnswer.parse(Array(text.utf8)) else { Issue.record("not a playlist"); return }
        #expect(list.title == "Two clips")
        #expect(list.entries == [PagePlaylist.Entry(url: "http://h/a.mp4", title: "One"), PagePlaylist.Entry(url: "https://h/watch?v=2", title: "Two")])
        #expect(list.leftOut == 3)
        let many = #"{"_type": "playlist", "entries": ["# + Array(repeating: #"{"url": "http://h/x"}"#, count: 1500).joined(separator: ",") + "]}"
        guard case .playlist(let cut) = try PageAnswer.parse(Array(many.utf8)) else { Issue.record("not a playlist"); return }
        #expect(cut.entries.count == PagePlaylist.maxEntries)
    }

    @Test func hostileAnswersAreRefusedInOneLine() {
        let cases: [(String, String)] = [
            ("not json", "not JSON"),
            ("[1]", "not a JSON object"),
            (String(repeating: "[", count: 100_000), "nests deeper"),
            (#"{"url": "file:///etc/passwd"}"#, "no http(s) URL"),
            (#"{"url": "http://h/x\ny"}"#, "no http(s) URL"),
            // C1 controls and Unicode line breaks are no more a URL's than LF is.
            (#"{"url": "http://h/x\u0085y"}"#, "no http(s) URL"),
            (#"{"url": "http://h/x\u009b2Jy"}"#, "no http(s) URL"),
            (#"{"url": "http://h/x\u2028y"}"#, "no http(s) URL"),
            (#"{"_type": "playlist", "entries": []}"#, "playlist"),
            (#"{"requested_formats": [{"url": "file:///a"}, {"url": "http://h/b"}]}"#, "no http(s) URL"),
        ]
        for (text, says) in cases {
            #expect(throws: PageError.self) { try parse(text) }
            do { _ = try parse(text) } catch let error as PageError {
                #expect(error.message.contains(says) && !error.message.contains("\n"), "\(text.prefix(40)): \(error.message)")
            } catch {}
        }
        #expect(throws: PageError.self) { try PageMedia.parse([UInt8](repeating: 0x20, count: PageMedia.outputBudget + 1)) }
    }

    /// The page is read by the one bounded JSON reader (AetherBase's `JSONValue`): mpv's nesting
    /// limit, a budget of values, and numbers that are numbers (a boolean is not a time).
    @Test func thePageIsReadWithinTheJSONReadersBudgets() throws {
        let nest = { (n: Int) in String(repeating: "[", count: n - 1) + String(repeating: "]", count: n - 1) }
        #expect(try parse(#"{"url": "http://h/v", "x": \#(nest(PageMedia.maxDepth))}"#).url == "http://h/v")
        #expect(throws: PageError.self) { try parse(#"{"url": "http://h/v", "x": \#(nest(PageMedia.maxDepth + 1))}"#) }
        let many = "[" + Array(repeating: "0", count: PageMedia.maxValues).joined(separator: ",") + "]"
        do throws(PageError) { _ = try parse(#"{"url": "http://h/v", "x": \#(many)}"#); Issue.record("past the values budget") } catch {
            #expect(error.message.contains("values"))
        }
        let page = try parse(#"{"url": "http://h/v", "chapters": [{"start_time": true, "end_time": 2}, {"start_time": 1, "end_time": 2.5}]}"#)
        #expect(page.chapters.map(\.start) == [1])
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array("[1,2]".utf8), maximumBytes: 4) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array("[1,2]".utf8), maximumValues: 2) }
        #expect(try JSONValue.parse(Array("[1,2]".utf8), maximumBytes: 5, maximumValues: 3) == .array([.int(1), .int(2)]))
    }

    @Test func rawOptionsAndFormat() throws {
        let options = try YtdlSettings.parseRawOptions("video-multistreams=,format-sort=res:720,proxy=")
        #expect(options.map(\.key) == ["video-multistreams", "format-sort", "proxy"])
        #expect(options.map(\.value) == ["", "res:720", ""])
        #expect(YtdlRunner.arguments(url: "http://h/p", settings: {
            var s = YtdlSettings()
            s.format = "bv+ba"
            s.rawOptions = options
            return s
        }()) == ["-J", "--no-playlist", "--flat-playlist", "--no-warnings", "--no-progress", "-f", "bv+ba", "--video-multistreams",
                 "--format-sort", "res:720", "--proxy", "--", "http://h/p"])
        for bad in ["exec=rm", "exec-befo=rm", "config-loc=/x", "batch=/x", "--x=1", "a b=1", "o=/tmp/x", "k=v\u{1}", String(repeating: "a=1,", count: 33)] {
            #expect(throws: PageError.self, "\(bad)") { try YtdlSettings.parseRawOptions(bad) }
        }
        #expect(try YtdlSettings.checkFormat("bestvideo[height<=720]+bestaudio/best") == "bestvideo[height<=720]+bestaudio/best")
        for bad in ["", "-x", "a\u{1B}b", String(repeating: "b", count: 257), "a\u{202E}b"] {
            #expect(throws: PageError.self, "\(bad)") { try YtdlSettings.checkFormat(bad) }
        }
    }

    /// What the opener takes from a page: its title stands for the media's, its chapters fill an
    /// empty chapter list.
    @Test func aPagesTitleAndChaptersBecomeTheMedias() throws {
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.page = PageMedia(url: "http://127.0.0.1:9/v.mp4", title: "Page title",
                           chapters: [Chapter(title: "One", start: 0, end: 5), Chapter(title: "Two", start: 5, end: 12)])
        let player = Player()
        defer { player.stop() }
        try player.load(url: TestEnvironment.fixture("video-only.mkv"), options: o)
        #expect(player.mediaInfo?.title == "Page title")
        #expect(player.mediaInfo?.chapters.map(\.title) == ["One", "Two"])
    }

    /// Only what begins as HTML goes to yt-dlp: a playlist or a damaged file keeps its own error.
    @Test func onlyHTMLPagesGoToYtdl() {
        for page in ["<html><body>", "\u{FEFF}  <!DOCTYPE html>\n<html>", "\n<!-- c --><html>", "<HEAD><title>x"] {
            #expect(YtdlRunner.looksLikeHTML(Array(page.utf8)), "\(page)")
        }
        for other in ["#EXTM3U\n#EXTINF:-1,x\nfile:///etc/passwd", "[playlist]\nFile1=x", "\u{0}\u{1}garbage", "", "{\"url\": 1}"] {
            #expect(!YtdlRunner.looksLikeHTML(Array(other.utf8)), "\(other)")
        }
    }
}
