import Testing
import AetherMedia

/// Unit tier: which sources name a local file (the encryption scan and a playlist's bytes read it directly).
@Suite struct LocalPathTests {
    @Test func pathsAndFileURLsAreLocalAndNothingElseIs() {
        #expect(NetworkSettings.localPath("film.mkv") == "film.mkv")
        #expect(NetworkSettings.localPath("/media/a:b.mkv") == "/media/a:b.mkv")
        #expect(NetworkSettings.localPath("file:/tmp/x.mp4") == "/tmp/x.mp4")
        #expect(NetworkSettings.localPath("-") == nil)
        #expect(NetworkSettings.localPath("https://example.com/x.mp4") == nil)
        #expect(NetworkSettings.localPath("crypto+http://example.com/x.ts") == nil)
        #expect(NetworkSettings.localPath("udp://239.0.0.1:1234") == nil)
    }
}
