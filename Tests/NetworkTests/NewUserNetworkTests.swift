import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// What a new user meets first over the network (issue 32). Tier: network.
@Suite struct NewUserNetworkTests {
    /// A DASH stream read by our reader is said to be DASH (item 12): IPC `file-format` (and the
    /// stats box's container line, from the same MediaInfo), not the HLS it is translated to for
    /// libavformat.
    @Test func aDASHStreamSaysDASH() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/mpv.sock"
        let player = BackgroundPlayer([TestEnvironment.binary, server.url("dash-abr/manifest.mpd"), "--vo=null", "--ao=null", "--pause",
                                       "--input-ipc-server=\(socket)"], timeout: 60)
        let client = try IPCTestClient(path: socket, timeout: 15)
        #expect(waitUntil(15, interval: 0.05) { client.request(#"{"command":["get_property","duration"]}"#)?["data"] is Double },
                "the stream did not open")
        #expect(client.request(#"{"command":["get_property","file-format"]}"#)?["data"] as? String == "dash")
        _ = client.request(#"{"command":["quit"]}"#)
        #expect(player.wait()?.status == 0)
    }
}
