import AetherEngine
@testable import AetherMedia
@testable import AetherSubtitles
import AetherTestSupport
import Foundation
import Testing

/// WebVTT in fragmented MP4 (`wvtt`) as a DASH text set segments it, written by
/// `Tests/Scripts/wvtt_segments.py` (2 s segments cut into samples at every cue boundary, a cue
/// repeated in each sample it spans), read back into cues; and the hostile cases.
@Suite struct WVTTReaderTests {
    static let cues = """
        [{"start": 1.0, "end": 5.0, "text": "First cue across segments", "settings": "line:0 align:start", "id": "a"},
         {"start": 3.0, "end": 4.5, "text": "Overlap <b>two</b>"},
         {"start": 6.0, "end": 7.5, "text": "Third\\n\\nline two --> not a time"}]
        """

    /// The init section and `count` segments the script writes (`hostile`: its segment 1 broken).
    static func written(count: Int = 4, hostile: String? = nil, cues: String = WVTTReaderTests.cues) throws -> (head: [UInt8], segments: [[UInt8]]) {
        let dir = NSTemporaryDirectory() + "aether-wvtt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try cues.write(toFile: dir + "/cues.json", atomically: true, encoding: .utf8)
        let r = Process.run(["/usr/bin/env", "python3", TestEnvironment.scripts.appendingPathComponent("wvtt_segments.py").path,
                             dir + "/cues.json", dir + "/out", "2", String(count)] + (hostile.map { ["--hostile", $0] } ?? []), timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        func read(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/" + name))) }
        return (try read("init.mp4"), try (1...count).map { try read("seg-\($0).m4s") })
    }

    /// Cues spanning samples and segments come back once each with their times (placed at the
    /// segments' starts on the presentation timeline: a period starting at 10 s), settings and
    /// text; a blank line and `-->` inside a cue's text cannot end it or start another.
    @Test func segmentedCuesAreJoinedAcrossSamplesAndSegments() throws {
        let (head, segments) = try Self.written()
        #expect(try WVTTReader.track(initialization: head) == .init(timescale: 1000))
        let cues = try WVTTReader.cues(initialization: head, segments: segments.enumerated().map { ($0.element, 10 + 2 * Double($0.offset)) })
        #expect(cues.map(\.start) == [11, 13, 16] && cues.map(\.end) == [15, 14.5, 17.5], "\(cues)")
        #expect(cues.map(\.settings) == ["line:0 align:start", "", ""])
        #expect(cues.map(\.text) == ["First cue across segments", "Overlap <b>two</b>", "Third\nline two --&gt; not a time"])
        // As a document the subtitle store reads: three cues.
        let document = WebVTTJoin.document(cues, shift: 0)
        #expect(document.components(separatedBy: " --> ").count - 1 == 3, "\(document)")
        // A segment on its own: its samples' cues, repeats not joined (the first cue in two samples).
        let one = try WVTTReader.cues(segment: segments[1], track: .init(timescale: 1000), start: 2)
        #expect(one.map(\.start) == [2, 3, 3] && one.map(\.end) == [3, 4, 4], "\(one)")
    }

    /// Hostile segments and init sections: each refused with one line (a run declaring 2^31
    /// samples is refused before any is read: the refusal names the count).
    @Test func hostileWVTTIsRefusedInOneLine() throws {
        for (kind, says) in [("count", "a track run declares 2147483648 samples its box cannot hold"),
                             ("pastend", "a sample runs past the segment"),
                             ("size", "has a size of"),
                             ("time", "a cue time is not one in 0…360000 s")] {
            let (head, segments) = try Self.written(count: 2, hostile: kind)
            do {
                _ = try WVTTReader.cues(initialization: head, segments: segments.map { ($0, 0) })
                Issue.record("\(kind): not refused")
            } catch {
                #expect(error.message.contains(says) && !error.message.contains("\n"), "\(kind): \(error.message)")
            }
        }
        let (head, segments) = try Self.written(count: 2)
        func refusal(_ head: [UInt8], _ segments: [[UInt8]], limits: WVTTReader.Limits = .init()) -> String? {
            do { _ = try WVTTReader.cues(initialization: head, segments: segments.map { ($0, 0) }, limits: limits); return nil } catch { return error.message }
        }
        // The init section: not one, a zero timescale, another sample entry.
        #expect(refusal(Array("not an mp4 at all".utf8), segments)?.contains("box") == true)
        #expect(refusal([], segments) == "the init section has no media header (moov/trak/mdia/mdhd)")
        let mdhd = try #require(Self.find("mdhd", in: head))
        var zero = head
        for i in (mdhd + 12)..<(mdhd + 16) { zero[i] = 0 }
        #expect(refusal(zero, segments) == "the timescale 0 is not one in 1…1000000000")
        var stpp = head
        let entry = try #require(Self.find("wvtt", in: head, last: true))
        stpp.replaceSubrange((entry - 4)..<entry, with: Array("stpp".utf8))
        #expect(refusal(stpp, segments) == "the init section's sample entry is not WebVTT (wvtt)")
        // A segment cut short, a box with a 64-bit size past the file, a box header cut short.
        #expect(refusal(head, [Array(segments[0].prefix(segments[0].count - 5))])?.contains("does not fit") == true)
        #expect(refusal(head, [[0, 0, 0, 1] + Array("moof".utf8) + [0xFF, 0, 0, 0, 0, 0, 0, 0]]) == "box 'moof' runs past its container")
        #expect(refusal(head, [[0, 0, 0, 9, 0x6D]]) == "a box header is cut short")
        // Budgets: cues, text bytes, boxes at one level.
        var few = WVTTReader.Limits()
        few.cues = 1
        #expect(refusal(head, segments, limits: few) == "more than 1 subtitle cues")
        var short = WVTTReader.Limits()
        short.textBytes = 8
        #expect(refusal(head, segments, limits: short)?.hasPrefix("a cue's 'sttg' has 18 bytes (more than 8)") == true)
        let empties = [UInt8](repeating: 0, count: 8 * 5000).enumerated().map { $0.offset % 8 == 3 ? 8 : ($0.offset % 8 >= 4 ? Array("free".utf8)[$0.offset % 8 - 4] : 0) }
        var narrow = WVTTReader.Limits()
        narrow.boxesPerLevel = 1000
        #expect(refusal(head, [empties], limits: narrow) == "more than 1000 boxes in one place")
        #expect(refusal(head, [empties]) == nil)
    }

    /// Where box `type`'s 4-byte name ends in `bytes` (the first one, or the `last`).
    static func find(_ type: String, in bytes: [UInt8], last: Bool = false) -> Int? {
        let name = Array(type.utf8)
        guard bytes.count >= 4 else { return nil }
        let hits = (4...bytes.count).filter { bytes[($0 - 4)..<$0].elementsEqual(name) }
        return last ? hits.last : hits.first
    }
}
