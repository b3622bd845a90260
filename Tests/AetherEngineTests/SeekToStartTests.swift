import AetherEngine
import AetherTestSupport
import Testing

/// A seek back to the start of an HLS stream (unit tier: a generated HLS VOD read from files).
/// libavformat's HLS demuxer refuses a time before the first packet it returned, and that packet
/// is the video's, after the audio's `start_time`, where media time 0 is: the seek failed with
/// "Operation not permitted" (the TUI's redisplay before the first picture, a user's seek to
/// 0). `FormatContext` seeks to the first packet instead.
@Suite struct SeekToStartTests {
    @Test func anHLSStreamSeeksBackToItsStart() throws {
        let format = try FormatContext(url: TestEnvironment.fixture("net/hls-vod/v0/index.m3u8"), interrupt: InterruptToken(clock: .monotonic))
        let packet = try Packet()
        var first: [Int: Int64] = [:]
        for _ in 0..<200 {
            guard try format.read(into: packet) else { break }
            if first[packet.streamIndex] == nil, let dts = packet.dts { first[packet.streamIndex] = dts }
        }
        #expect(first.count == 2, "an audio and a video stream: \(first)")
        try format.seek(toSeconds: 0)
        // The packets start again at the beginning: each stream's first packet comes again.
        var again: [Int: Int64] = [:]
        for _ in 0..<200 where again.count < first.count {
            guard try format.read(into: packet) else { break }
            if again[packet.streamIndex] == nil, let dts = packet.dts { again[packet.streamIndex] = dts }
        }
        #expect(again == first)
    }
}
