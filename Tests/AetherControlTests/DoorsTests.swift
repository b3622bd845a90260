import AetherBase
@testable import AetherControl
import AetherTestSupport
import Foundation
import Testing

/// The text doors under hostile input (issue 19): config profiles, playlists and directories,
/// watch-later entries, the IPC JSON reader and session. Every assertion counts work or items,
/// never seconds.
struct DoorsTests {
    func tempDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "aether-doors-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    // MARK: config

    @Test func profilesThatIncludeEachOtherManyTimesAreAppliedOnce() {
        // p0 includes p1 three times, p1 includes p2 three times … : 3^20 lines before.
        var text = "profile=p0\n"
        for i in 0..<20 { text += "[p\(i)]\nvolume=\(i)\nprofile=p\(i + 1),p\(i + 1),p\(i + 1)\n" }
        text += "[p20]\nmute\nprofile=p0\n"
        let (file, warnings) = ConfigFile.parse(text)
        #expect(warnings.isEmpty)
        let (lines, unknown) = file.lines(profiles: ["p0", "p5"])
        // The 8-deep limit stops at p8: p0 … p7's volume lines, each once.
        #expect(lines.map(\.key) == Array(repeating: "volume", count: 8))
        #expect(lines.map(\.value) == (0..<8).map { String($0) })
        #expect(unknown.isEmpty)
        // A profile that names itself, and one named twice on the command line: once.
        let (loop, _) = ConfigFile.parse("[a]\nvolume=1\nprofile=a,a\n")
        #expect(loop.lines(profiles: ["a", "a"]).lines.count == 1)
    }

    @Test func aLineOverTheCapIsRefusedWithItsNumber() {
        let long = String(repeating: "x", count: TextBudget.maxLineBytes + 1)
        let (file, warnings) = ConfigFile.parse("volume=40\n\(long)=1\nmute\n")
        #expect(warnings == ["aether-tui.conf:2: line too long (over 64 KiB)"])
        #expect(file.defaults.map(\.key) == ["volume", "mute"])
        // A long name under the cap is no option either: one short warning.
        let (_, named) = ConfigFile.parse(String(repeating: "v", count: 1000) + "=1\n")
        #expect(named.count == 1 && named[0].utf8.count < 200, "\(named)")
    }

    @Test func aConfigFilePastItsBudgetIsReadToTheBudget() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/aether-tui.conf"
        var text = ""
        while text.utf8.count <= ConfigFile.maxBytes { text += "volume=40\n" }
        text += "mute\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (file, warnings) = try #require(ConfigFile.load(path: path))
        #expect(warnings.first == "aether-tui.conf: larger than 1 MiB; the rest is left out")
        #expect(!file.defaults.contains { $0.key == "mute" })
        #expect(file.defaults.count == ConfigFile.maxBytes / 10)
        // A FIFO is not read (it would block).
        let fifo = dir + "/fifo.conf"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(ConfigFile.load(path: fifo) == nil)
    }

    // MARK: playlists and directories

    @Test func aPlaylistListingItselfTenTimesIsExpandedOnce() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try (String(repeating: "self.m3u\n", count: 10) + "a.mkv\n").write(toFile: dir + "/self.m3u", atomically: true, encoding: .utf8)
        let r = PlaylistLoader.expand([dir + "/self.m3u"])
        #expect(r.items == [PlaylistItem(source: dir + "/a.mkv")])
        #expect(r.warnings.count == 10, "\(r.warnings)")
        #expect(r.warnings.allSatisfy { $0.contains("already expanded") })
    }

    @Test func aDirectoryOfLinksToItselfIsWalkedOnce() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        FileManager.default.createFile(atPath: dir + "/a.mkv", contents: Data())
        for i in 0..<10 { try FileManager.default.createSymbolicLink(atPath: "\(dir)/link\(i)", withDestinationPath: dir) }
        let r = PlaylistLoader.expand([dir])
        #expect(r.items == [PlaylistItem(source: dir + "/a.mkv")])
        #expect(r.warnings.count == 10 && r.warnings.allSatisfy { $0.contains("already expanded") }, "\(r.warnings)")
    }

    @Test func playlistsStopAtTheItemBudgetWithOneWarning() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var pls = "[playlist]\n"
        for i in 1...2500 { pls += "File\(i)=f\(i).mkv\n" }
        try pls.write(toFile: dir + "/big.pls", atomically: true, encoding: .utf8)
        let r = PlaylistLoader.expand([dir + "/big.pls", dir + "/big.pls", "http://x/y"], maxItems: 1000)
        #expect(r.items.count == 1000)
        #expect(r.items.last == PlaylistItem(source: dir + "/f1000.mkv"))
        #expect(r.warnings == ["the playlist is cut at 1000 items; the rest is left out"], "\(r.warnings)")
        // The text parser has its own budget.
        let parsed = try #require(PlaylistLoader.parse(bytes: Array(pls.utf8), path: "/p/big.pls", maxEntries: 10))
        #expect(parsed.items.count == 10)
        #expect(parsed.warnings == ["more than 10 entries; the rest is left out"])
        // And a line over the cap is left out, with a count.
        let m3u = "a.mkv\n" + String(repeating: "b", count: TextBudget.maxLineBytes + 1) + "\nc.mkv\n"
        let cut = try #require(PlaylistLoader.parse(bytes: Array(m3u.utf8), path: "/p/l.m3u"))
        #expect(cut.items.map(\.source) == ["/p/a.mkv", "/p/c.mkv"])
        #expect(cut.warnings == ["1 line(s) too long (over 64 KiB) left out"])
    }

    // MARK: watch-later

    @Test func watchLaterValuesOutOfRangeAreRefused() {
        func parse(_ text: String) -> WatchLater.Entry? { WatchLater.parse(Array(text.utf8)) }
        #expect(parse("start=1e300\n") == nil, "start=1e300 crashed every start of the file")
        #expect(parse("start=inf\n") == nil)
        #expect(parse("start=nan\n") == nil)
        #expect(parse("start=-1\n") == nil)
        #expect(parse("start=1000000001\n") == nil)
        let e = parse("start=12.5\naid=1000\nsid=0\nvolume=131\nspeed=100\nsub-delay=1e300\naudio-delay=-11\nmute=maybe\n")
        #expect(e?.start == 12.5)
        #expect(e?.audioTrack == nil && e?.subtitleTrack == nil && e?.volume == nil && e?.speed == nil)
        #expect(e?.subtitleDelay == nil && e?.audioDelay == nil && e?.muted == nil)
        let good = parse("# /a.mkv\nstart=83.25\naid=2\nsid=no\nvolume=130\nspeed=0.25\nsub-delay=-2\naudio-delay=10\nmute=yes\n")
        #expect(good?.audioTrack == .some(2) && good?.subtitleTrack == .some(nil))
        #expect(good?.volume == 130 && good?.speed == 0.25 && good?.subtitleDelay == -2 && good?.audioDelay == 10 && good?.muted == true)
    }

    @Test func aWatchLaterFileSavedOutOfRangeIsNotLoaded() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = WatchLater(directory: dir)
        try store.save(WatchLater.Entry(start: 1e300), for: "/x.mkv")
        #expect(store.load(for: "/x.mkv") == nil)
        try store.save(WatchLater.Entry(start: 5), for: "/x.mkv")
        #expect(store.load(for: "/x.mkv")?.start == 5)
        // Past its byte budget: not read at all.
        try Data(("start=5\n" + String(repeating: "#", count: WatchLater.maxBytes)).utf8)
            .write(to: URL(fileURLWithPath: store.path(for: "/x.mkv")))
        #expect(store.load(for: "/x.mkv") == nil)
    }

    // MARK: IPC

    @Test func theJSONReaderSurvivesHostileInput() throws {
        func parse(_ text: String) -> JSONValue? { try? JSONValue.parse(Array(text.utf8)) }
        #expect(parse(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)) == nil)
        #expect(parse(String(repeating: "[", count: 50) + String(repeating: "]", count: 50)) != nil)
        #expect(parse("1e400") == nil && parse("-1e400") == nil)
        #expect(parse("NaN") == nil && parse("Infinity") == nil && parse("-Infinity") == nil && parse("nan") == nil)
        #expect(parse("123456789012345678901234567890") == .double(123456789012345678901234567890.0))
        #expect(parse("9223372036854775807") == .int(.max))
        #expect(parse("\"\\ud800\"") == nil && parse("\"\\udc00x\"") == nil && parse("\"\\ud83d\\ude00\"") == .string("😀"))
        #expect((try? JSONValue.parse([0x22, 0xC0, 0xAF, 0x22])) == nil, "overlong UTF-8")
        #expect((try? JSONValue.parse([0x22, 0xED, 0xA0, 0x80, 0x22])) == nil, "a surrogate in UTF-8")
        #expect((try? JSONValue.parse([0x22, 0xFF, 0x22])) == nil)
        #expect(parse(String(repeating: "9", count: 1 << 20)) == nil, "a megabyte of digits is out of range")
    }

    @Test func aClientThatClosesWhileItsCommandRunsHasTheRestRun() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, time: .monotonic)
        defer { server.stop() }
        // A busy host: the client is gone, and the server has seen it go, before the first reply.
        host.hold()
        do {
            let client = try IPCTestClient(path: dir.file("s"))
            client.send(bytes: Array(#"{"command":["set_property","volume",37]}"#.utf8) + [0x0A]
                        + Array(#"{"command":["set_property","pause",true]}"#.utf8) + [0x0A]
                        + Array("add volume 1".utf8))   // the last with no newline
            withExtendedLifetime(client) {}
        }
        let other = try IPCTestClient(path: dir.file("s"))
        #expect(other.serverCaughtUp())
        #expect(host.commands.isEmpty)
        host.resume()
        _ = waitUntil(5, interval: 0.01) { host.commands.count >= 3 }
        #expect(host.commands.count == 3, "\(host.commands)")
        #expect(host.snapshot.audio.volume == 38 && host.snapshot.status == .paused)
    }

    @Test func aLineOverTheBudgetGetsOneErrorReplyThenTheConnectionCloses() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        var limits = IPCServer.Limits()
        limits.lineBytes = 1000
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, limits: limits, time: .monotonic)
        defer { server.stop() }
        let client = try IPCTestClient(path: dir.file("s"))
        client.send(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 1500))
        #expect(client.readObject() as NSDictionary? == ["request_id": 0, "error": "line too long"])
        #expect(client.closedByServer())
        // Complete lines before the long one are run and answered first.
        let other = try IPCTestClient(path: dir.file("s"))
        other.send(bytes: Array(#"{"command":["get_property","pause"],"request_id":7}"#.utf8) + [0x0A]
                   + [UInt8](repeating: UInt8(ascii: "y"), count: 1500))
        #expect(other.readObject()?["request_id"] as? Int == 7)
        #expect(other.readObject()?["error"] as? String == "line too long")
        #expect(other.closedByServer())
        #expect(host.commands.isEmpty)
    }

    @Test func hostileIPCLinesGetAnErrorReply() {
        var session = IPCSession(name: "ipc-1", time: .monotonic)
        let snapshot = PlayerSnapshot()
        for line in [String(repeating: "{\"a\":", count: 1000), "{\"command\":[\"seek\",1e400]}", "{\"command\":[\"seek\",\"\\ud800\"]}"] {
            let actions = session.handle(line: Array(line.utf8), snapshot: { snapshot })
            #expect(actions == [.send("{\"request_id\":0,\"error\":\"invalid parameter\"}")], "\(line.prefix(40))")
        }
        // Observations are bounded (each costs work on every event).
        for i in 0..<IPCSession.maxObservations {
            _ = session.handle(line: Array(#"{"command":["observe_property",\#(i),"volume"]}"#.utf8), snapshot: { snapshot })
        }
        let refused = session.handle(line: Array(#"{"command":["observe_property",-1,"volume"]}"#.utf8), snapshot: { snapshot })
        #expect(refused == [.send("{\"request_id\":0,\"error\":\"invalid parameter\"}")])
        #expect(session.lines(for: .propertyChanged(name: "volume", value: .number(50))).count == IPCSession.maxObservations)
        // The fuzz entry point runs a stream of them without trapping.
        IPCFuzz.run(Array("{\"command\":[\"seek\",\"1e308\",\"absolute\"]}\nseek 1e308\n[\n{}\n\u{FF}\n".utf8))
    }
}
