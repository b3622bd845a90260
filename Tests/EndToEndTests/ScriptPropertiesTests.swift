import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// What an mpv user or script expects of the command surface (issue 19): the properties
/// scripts read, video track choice (`--vid=N`, `vid`, `cycle video`), and volume, mute and
/// speed kept from one playlist item to the next.
@Suite(.serialized) struct ScriptPropertiesTests {
    /// Starts the headless player with a socket; the client, after the file is open.
    static func start(_ arguments: [String], dir: String) throws -> (BackgroundPlayer, IPCTestClient) {
        let socket = dir + "/mpv.sock"
        let player = BackgroundPlayer([TestEnvironment.binary, "--vo=null", "--ao=null",
                                                        "--input-ipc-server=\(socket)"] + arguments)
        let client = try IPCTestClient(path: socket, timeout: 15)
        #expect(client.request(#"{"command":["observe_property",99,"duration"]}"#)?["error"] as? String == "success")
        _ = client.waitForEvent(timeout: 15) { $0["id"] as? Int == 99 && !($0["data"] is NSNull) }
        return (player, client)
    }

    static func get(_ client: IPCTestClient, _ name: String) -> Any? {
        client.request(#"{"command":["get_property","\#(name)"]}"#)?["data"]
    }

    static func quit(_ player: BackgroundPlayer, _ client: IPCTestClient) {
        _ = client.request(#"{"command":["quit"]}"#)
        #expect(player.wait()?.status == 0)
    }

    /// Two video tracks (320×240 red, 160×120 blue) and a tone, made with the ffmpeg CLI.
    static func twoVideoFile(in dir: String) throws -> String {
        let path = dir + "/two-video.mkv"
        let r = Process.run(["/usr/bin/ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
                             "-f", "lavfi", "-i", "color=c=red:s=320x240:r=24:d=4",
                             "-f", "lavfi", "-i", "color=c=blue:s=160x120:r=24:d=4",
                             "-f", "lavfi", "-i", "sine=f=440:d=4",
                             "-map", "0:v", "-map", "1:v", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast",
                             "-c:a", "aac", path], timeout: 60)
        try #require(r.status == 0, "ffmpeg: \(r.stderr)")
        return path
    }

    @Test func propertiesScriptsRead() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (player, client) = try Self.start([TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), "--pause"], dir: dir)
        let chapters = try #require(Self.get(client, "chapter-list") as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["Opening", "Middle", "End"])
        #expect(Self.get(client, "chapters") as? Int == 3)
        #expect(Self.get(client, "chapter") as? Int == 0)
        #expect(client.request(#"{"command":["set_property","chapter",2]}"#)?["error"] as? String == "success")
        #expect(waitUntil(3, interval: 0.02) { Self.get(client, "chapter") as? Int == 2 }, "get after set")
        let tracks = try #require(Self.get(client, "track-list") as? [[String: Any]])
        #expect(tracks.filter { $0["type"] as? String == "video" }.count == 1)
        #expect(tracks.filter { $0["type"] as? String == "audio" }.count == 2)
        #expect(tracks.contains { $0["type"] as? String == "audio" && $0["selected"] as? Bool == true && $0["id"] as? Int == 1 })
        #expect(tracks.filter { $0["type"] as? String == "sub" }.count >= 2)
        #expect(Self.get(client, "width") as? Int == 320)
        #expect(Self.get(client, "height") as? Int == 240)
        let params = try #require(Self.get(client, "video-params") as? [String: Any])
        #expect(params["w"] as? Int == 320 && params["h"] as? Int == 240 && params["pixelformat"] as? String == "yuv420p", "\(params)")
        #expect(Self.get(client, "metadata") is [String: Any])
        #expect(Self.get(client, "vid") as? Int == 1)
        #expect((Self.get(client, "file-size") as? Int ?? 0) > 10_000)
        #expect((Self.get(client, "time-remaining") as? Double).map { $0 > 1 } == true)
        // A node as a string is one line of JSON.
        let text = client.request(#"{"command":["get_property_string","chapter-list"]}"#)?["data"] as? String
        #expect(text?.hasPrefix("[{") == true && text?.contains("\n") == false, "\(String(describing: text))")
        Self.quit(player, client)
    }

    @Test func videoTrackChoice() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try Self.twoVideoFile(in: dir)
        let (player, client) = try Self.start([file, "--vid=2", "--pause"], dir: dir)
        #expect(Self.get(client, "vid") as? Int == 2)
        #expect(Self.get(client, "width") as? Int == 160)
        #expect(client.request(#"{"command":["set_property","time-pos",2]}"#)?["error"] as? String == "success")
        #expect(waitUntil(3, interval: 0.02) { (Self.get(client, "time-pos") as? Double).map { abs($0 - 2) < 0.3 } == true },
                "the seek to 2 s never landed")
        #expect(client.request(#"{"command":["set_property","vid",1]}"#)?["error"] as? String == "success")
        #expect(Self.get(client, "vid") as? Int == 1)
        #expect(Self.get(client, "width") as? Int == 320)
        let position = Self.get(client, "time-pos") as? Double
        #expect(position.map { abs($0 - 2) < 0.3 } == true, "kept its place: \(String(describing: position))")
        #expect(Self.get(client, "pause") as? Bool == true, "still paused")
        // cycle video: 1 → 2 → off → 1.
        client.send("cycle video")
        #expect(waitUntil(3, interval: 0.02) { Self.get(client, "vid") as? Int == 2 }, "\(String(describing: Self.get(client, "vid")))")
        client.send("cycle video")
        #expect(waitUntil(3, interval: 0.02) { Self.get(client, "vid") as? Bool == false }, "\(String(describing: Self.get(client, "vid")))")
        #expect(client.request(#"{"command":["set_property","vid",3]}"#)?["error"] as? String != "success")
        Self.quit(player, client)
        // Out of range on the command line: a usage error.
        let r = Process.run([TestEnvironment.binary, "--vid=0", file, "--vo=null", "--ao=null"], timeout: 10)
        #expect(r.status != 0 && r.stderr.contains("--vid"), "\(r.status) \(r.stderr)")
    }

    @Test func volumeMuteAndSpeedStayForTheNextItem() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (player, client) = try Self.start(["sine-1k.mkv", "solid-red.mkv"].map(TestEnvironment.fixture) + ["--pause"], dir: dir)
        for line in [#"["set_property","volume",40]"#, #"["set_property","mute",true]"#, #"["set_property","speed",1.5]"#] {
            #expect(client.request(#"{"command":\#(line)}"#)?["error"] as? String == "success")
        }
        #expect(client.request(#"{"command":["playlist-next"]}"#)?["error"] as? String == "success")
        #expect(Self.get(client, "playlist-pos") as? Int == 1)
        #expect(Self.get(client, "volume") as? Double == 40)
        #expect(Self.get(client, "mute") as? Bool == true)
        #expect(Self.get(client, "speed") as? Double == 1.5)
        Self.quit(player, client)
    }
}
