@testable import AetherControl
import Foundation
import Testing

struct PlaylistTests {
    func tempDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "aether-playlist-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func touch(_ path: String, _ text: String = "") {
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    @Test func naturalOrderComparesNumbersByValue() {
        let names = ["ep10.mkv", "ep2.mkv", "Ep1.mkv", "ep02b.mkv", "extra.mkv", "ep1.mp4"]
        #expect(names.sorted(by: PlaylistLoader.naturalOrder) == ["Ep1.mkv", "ep1.mp4", "ep2.mkv", "ep02b.mkv", "ep10.mkv", "extra.mkv"])
    }

    @Test func directoriesGiveTheirMediaFilesInNaturalOrderRecursively() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["10.mkv", "2.mkv", "notes.txt", ".hidden.mkv", "cover.jpg"] { touch("\(dir)/\(name)") }
        try FileManager.default.createDirectory(atPath: "\(dir)/extras", withIntermediateDirectories: true)
        touch("\(dir)/extras/1.mp3")
        let r = PlaylistLoader.expand([dir])
        #expect(r.items.map { ($0.source as NSString).lastPathComponent } == ["2.mkv", "10.mkv", "1.mp3"])
        #expect(r.warnings.isEmpty)
        let empty = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(PlaylistLoader.expand([empty]).warnings == ["'\(empty)': no media files in the directory"])
    }

    /// A directory of images is a slideshow in natural order; an album's cover next to its
    /// tracks is not an item (issue 48, 4).
    @Test func aDirectoryOfImagesIsASlideshowAndACoverIsNotATrack() throws {
        let photos = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: photos) }
        for name in ["IMG_10.JPG", "IMG_9.jpg", "scan.png", "notes.txt"] { touch("\(photos)/\(name)") }
        #expect(PlaylistLoader.expand([photos]).items.map { ($0.source as NSString).lastPathComponent } == ["IMG_9.jpg", "IMG_10.JPG", "scan.png"])
        let album = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: album) }
        for name in ["01.flac", "02.flac", "cover.jpg"] { touch("\(album)/\(name)") }
        #expect(PlaylistLoader.expand([album]).items.map { ($0.source as NSString).lastPathComponent } == ["01.flac", "02.flac"])
    }

    @Test func m3uAndPlsEntriesResolveAgainstTheirDirectory() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        touch("\(dir)/list.m3u", "#EXTM3U\n#EXTINF:12,First one\na.mkv\n\n# comment\n/abs/b.mkv\nhttp://example.com/c.mp4\nfile:///x/d%20e.mkv\n")
        let m3u = PlaylistLoader.expand(["\(dir)/list.m3u"]).items
        #expect(m3u == [PlaylistItem(source: "\(dir)/a.mkv", title: "First one"), PlaylistItem(source: "/abs/b.mkv"),
                        PlaylistItem(source: "http://example.com/c.mp4"), PlaylistItem(source: "/x/d e.mkv")])
        touch("\(dir)/list.pls", "[playlist]\nFile2=two.ogg\nFile1=one.ogg\nTitle1=Uno\nNumberOfEntries=2\n")
        #expect(PlaylistLoader.expand(["\(dir)/list.pls"]).items == [PlaylistItem(source: "\(dir)/one.ogg", title: "Uno"),
                                                                     PlaylistItem(source: "\(dir)/two.ogg")])
        // An HLS playlist is a source for libavformat, not a list.
        touch("\(dir)/stream.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n")
        #expect(PlaylistLoader.expand(["\(dir)/stream.m3u8"]).items == [PlaylistItem(source: "\(dir)/stream.m3u8")])
        // A playlist naming itself stops at the depth limit.
        touch("\(dir)/self.m3u", "self.m3u\n")
        let loop = PlaylistLoader.expand(["\(dir)/self.m3u"])
        #expect(loop.items.isEmpty && loop.warnings.count == 1)
    }

    /// A station list from a server names the network only: a wrapper protocol libavformat
    /// opens a nested URL with (`subfile:/etc/passwd` is the file) is left out as a path is.
    @Test func aRemoteListNamesNoLocalFileThroughAWrapper() {
        let text = "[playlist]\nFile1=http://a.example/one\nFile2=two.mp3\nFile3=/etc/passwd\nFile4=file:///etc/passwd\n"
            + "File5=subfile:/etc/passwd\nFile6=SubFile:/etc/passwd\nFile7=crypto+file:///etc/passwd\n"
            + "File8=hls+file:///tmp/a.m3u8\nFile9=rtsp://b.example/live\nFile10=pipe:0\n"
        let parsed = PlaylistLoader.parseRemote(bytes: Array(text.utf8), url: "https://h.example/radio/list.pls")
        #expect(parsed?.items.map(\.source) == ["http://a.example/one", "https://h.example/radio/two.mp3", "rtsp://b.example/live"])
        #expect(parsed?.warnings == ["7 entries not on the network left out"])
    }

    @Test func moving() {
        let p = Playlist(["a", "b", "c"].map { PlaylistItem(source: $0) })
        #expect(p.index(after: nil, loop: false) == 0)
        #expect(p.index(after: 2, loop: false) == nil)
        #expect(p.index(after: 2, loop: true) == 0)
        #expect(p.index(before: 0, loop: false) == nil)
        #expect(p.index(before: 0, loop: true) == 2)
    }

    @Test func shuffleIsReproducibleWithASeed() {
        let items = (0..<20).map { PlaylistItem(source: "\($0)") }
        var a = Playlist(items), b = Playlist(items), c = Playlist(items)
        a.shuffle(seed: 42); b.shuffle(seed: 42); c.shuffle(seed: 43)
        #expect(a.items == b.items)
        #expect(a.items != items && a.items != c.items)
        #expect(Set(a.items.map(\.source)) == Set(items.map(\.source)))
    }

    /// Shuffling while playing keeps the item playing (first, at position 0), and unshuffling
    /// puts the order back with the position on the same item; an item added meanwhile stays.
    @Test func shuffleWhilePlayingKeepsTheItemAndUnshuffleRestores() {
        let items = (0..<20).map { PlaylistItem(source: "\($0)") }
        var p = Playlist(items)
        p.position = 7
        p.shuffle(keepingCurrent: 42)
        #expect(p.isShuffled && p.position == 0 && p.current?.source == "7" && p.items != items)
        #expect(Set(p.items.map(\.source)) == Set(items.map(\.source)))
        p.append(PlaylistItem(source: "new"))
        p.position = 5
        let playing = p.current
        p.unshuffle()
        #expect(!p.isShuffled && p.items == items + [PlaylistItem(source: "new")] && p.current == playing)
    }

    @Test func loopCounts() {
        #expect(LoopCount(option: "inf") == .infinite)
        #expect(LoopCount(option: "no") == .no)
        #expect(LoopCount(option: "0") == .no)
        #expect(LoopCount(option: "2") == .times(2))
        #expect(LoopCount(option: "-1") == nil)
    }
}

struct WatchLaterTests {
    @Test func roundTripAndMpvLikeNames() throws {
        let dir = NSTemporaryDirectory() + "aether-wl-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = WatchLater(directory: dir + "/watch_later")
        var e = WatchLater.Entry(start: 7.25)
        e.audioTrack = .some(2)
        e.subtitleTrack = .some(nil)
        e.volume = 40
        e.speed = 1.5
        e.subtitleDelay = -0.3
        try store.save(e, for: "/media/film.mkv")
        #expect(store.load(for: "/media/film.mkv") == e)
        #expect(store.load(for: "/media/other.mkv") == nil)
        // The name is the MD5 of the path (upper-case hex), as mpv names its files.
        #expect((store.path(for: "/media/film.mkv") as NSString).lastPathComponent.count == 32)
        let text = try String(contentsOfFile: store.path(for: "/media/film.mkv"), encoding: .utf8)
        #expect(text.contains("start=7.250000\n") && text.contains("aid=2\n") && text.contains("sid=no\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/watch_later")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        store.remove(for: "/media/film.mkv")
        #expect(store.load(for: "/media/film.mkv") == nil)
    }

    @Test func relativePathsAreKeyedAbsolute() {
        let cwd = FileManager.default.currentDirectoryPath
        #expect(WatchLater.key(for: "a/../b.mkv") == (cwd as NSString).appendingPathComponent("b.mkv"))
        #expect(WatchLater.key(for: "https://x/y.m3u8") == "https://x/y.m3u8")
    }
}

struct ConfigFileTests {
    @Test func mpvSyntaxWithProfiles() {
        let (file, warnings) = ConfigFile.parse("""
            # comment
            volume=40
            --mute
            sub-file="/a b/c.srt"  
            alang=jpn,eng # trailing comment
            profile=night
            [night]
            volume=20
            [loud]
            volume=100
            bad line here=
            [broken
            """)
        #expect(file.defaults.map(\.key) == ["volume", "mute", "sub-file", "alang", "profile"])
        #expect(file.defaults[2].value == "/a b/c.srt")
        #expect(file.defaults[3].value == "jpn,eng")
        #expect(file.defaults[1].value == nil)
        #expect(warnings == ["aether-tui.conf:11: cannot read 'bad line here='", "aether-tui.conf:12: a section is written [name]"])
        let (lines, unknown) = file.lines(profiles: ["loud", "nope"])
        #expect(lines.map { "\($0.key)=\($0.value ?? "")" } == ["volume=40", "mute=", "sub-file=/a b/c.srt", "alang=jpn,eng",
                                                              "volume=20", "volume=100"])
        #expect(lines.last?.number == 10)
        #expect(unknown == ["nope"])
    }

    @Test func languagePreferenceMatchesCodeVariants() {
        #expect(LanguagePreferenceProbe.first(["fre"], ["eng", "fra"]) == 1)
        #expect(LanguagePreferenceProbe.first(["fr"], ["eng", "fra"]) == 1)
        #expect(LanguagePreferenceProbe.first(["jpn", "eng"], ["eng", "fra", nil]) == 0)
        #expect(LanguagePreferenceProbe.first(["de"], ["ger"]) == 0)
        #expect(LanguagePreferenceProbe.first(["en-US"], ["eng"]) == 0)
        #expect(LanguagePreferenceProbe.first(["spa"], ["eng", "fra"]) == nil)
    }
}

import AetherEngine
enum LanguagePreferenceProbe {
    static func first(_ wanted: [String], _ tags: [String?]) -> Int? { LanguagePreference.first(of: wanted, in: tags) }
}
