import CFFmpeg
@testable import AetherMedia
@testable import AetherStreaming
import AetherTestSupport
import Foundation
import Testing

/// What MPEG-TS cannot carry, served as Matroska (issue 33): our header made from the init
/// section, then each segment's clusters, read as one stream give every packet of the source
/// segments (each read with its init section, as DASH defines a segment), at the same times,
/// with the same bytes. Tier: unit (the network fixtures' files,
/// no server).
struct SegmentTransmuxerTests {
    /// (stream index, pts in ms, size, a digest of the bytes) of every packet of `bytes`.
    static func packets(_ bytes: [UInt8]) throws -> [String] {
        let input = try FormatContext(bytes: bytes, clock: .monotonic)
        let packet = try Packet()
        var out: [String] = []
        while try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            let p = packet.pointer.pointee
            guard let stream = input.stream(Int(p.stream_index)) else { continue }
            let ms = av_rescale_q(p.pts, stream.pointee.time_base, AVRational(num: 1, den: 1000))
            var digest: UInt64 = 1469598103934665603
            for b in UnsafeBufferPointer(start: p.data, count: Int(p.size)) { digest = (digest ^ UInt64(b)) &* 1099511628211 }
            out.append("\(p.stream_index) \(ms) \(p.size) \(digest)")
        }
        return out
    }

    /// VP9 from WebM (the header made from a WebM init section), AV1 and AAC from fMP4.
    @Test(arguments: [("dash-webm", "webm", 0), ("dash-webm", "webm", 1), ("dash-webm", "webm", 2), ("dash-av1", "m4s", 0), ("dash-av1", "m4s", 1)])
    func matroskaClustersAfterOurHeaderAreTheSegments(set: String, ext: String, stream: Int) throws {
        let dir = TestEnvironment.fixture("net/\(set)")
        func file(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))) }
        let initialization = try file("init-stream\(stream).\(ext)")
        let header = try SegmentTransmuxer.header(initialization, clock: .monotonic)
        var served = header
        var expected: [String] = []
        for n in 1...10 {
            let segment = try file(String(format: "chunk-stream\(stream)-%05d.\(ext)", n))
            let clusters = try SegmentTransmuxer.served(segment, initialization: initialization, as: .matroska, clock: .monotonic)
            // A cluster of unknown size (a seek hands the demuxer another segment's clusters).
            #expect(clusters.starts(with: [0x1F, 0x43, 0xB6, 0x75, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
                    "segment \(n) does not start with a cluster of unknown size")
            served += clusters
            expected += try Self.packets(initialization + segment)
        }
        #expect(expected.count >= 480, "\(expected.count) packets")
        let got = try Self.packets(served)
        // Matroska keeps milliseconds: a time may round 1 ms the other way (Opus's -6.5 ms).
        func same(_ a: String, _ b: String) -> Bool {
            let x = a.split(separator: " "), y = b.split(separator: " ")
            return x.count == 4 && y.count == 4 && x[0] == y[0] && x[2...] == y[2...]
                && abs((Int(x[1]) ?? .min / 2) - (Int(y[1]) ?? .max / 2)) <= 1
        }
        let k = got.indices.first { $0 >= expected.count || !same(got[$0], expected[$0]) }
        #expect(k == nil && got.count == expected.count,
                "\(got.count) packets of \(expected.count); first difference at \(k ?? -1): \(k.map { got[$0] } ?? "") for \(k.flatMap { $0 < expected.count ? expected[$0] : nil } ?? "none")")
    }

    /// The header is the same bytes whichever segment it was made beside (the playlist's one
    /// EXT-X-MAP stands for every segment's clusters).
    @Test func theHeaderIsTheSegmentsOwn() throws {
        let dir = TestEnvironment.fixture("net/dash-av1")
        let initialization = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/init-stream0.m4s")))
        let header = try SegmentTransmuxer.header(initialization, clock: .monotonic)
        let segment = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/chunk-stream0-00004.m4s")))
        let output = try SegmentMuxer(.matroska)
        let input = try FormatContext(bytes: initialization + segment, clock: .monotonic)
        _ = try output.addStream(copying: try #require(input.stream(0)))
        let length = try output.writeHeader()
        #expect(Array(try output.finish().prefix(length)) == header)
        #expect(header.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) && header.count < 1024, "\(header.count) bytes")
    }
}
