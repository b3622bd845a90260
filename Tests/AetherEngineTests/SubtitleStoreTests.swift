import AetherEngine
@testable import AetherMedia
@testable import AetherSubtitles
import CFFmpeg
import Foundation
import Testing

/// The store's ordering, windows and caps, with cues inserted directly (no decoder involved).
@Suite struct SubtitleStoreTests {
    /// A store with two embedded text tracks (streams 2 and 3), the first selected.
    func store() -> SubtitleStore {
        let tags = StreamTags(language: nil, title: nil, isDefault: false, isForced: false)
        let info = MediaInfo(url: "x", container: "matroska", containerLongName: "Matroska", title: nil,
                             duration: 100, bitRate: nil, chapters: [], video: [], audio: [],
                             subtitles: [SubtitleStreamInfo(index: 2, codec: "subrip", codecLongName: "SubRip", kind: .text, tags: tags),
                                         SubtitleStreamInfo(index: 3, codec: "subrip", codecLongName: "SubRip", kind: .text, tags: tags)],
                             attachments: [])
        let s = SubtitleStore(info: info)
        s.select(0)
        return s
    }

    func text(_ start: Double, _ end: Double, _ t: String) -> SubtitleCue { SubtitleCue(start: start, end: end, content: .text(t)) }

    @Test func cuesAreKeptInStartOrderWithoutDuplicates() {
        let s = store()
        s.insert([text(5, 6, "c"), text(1, 2, "a"), text(3, 4, "b")], streamIndex: 2, position: nil)
        s.insert([text(3, 4, "b"), text(3, 4, "b2")], streamIndex: 2, position: nil)  // a look-behind re-read
        #expect(s.cues(track: 0).map(\.text) == ["a", "b", "b2", "c"])
    }

    @Test func activeFindsLongCuesThatStartedEarlier() {
        let s = store()
        s.insert([text(0, 60, "long"), text(10, 11, "short"), text(30, 31, "later")], streamIndex: 2, position: nil)
        #expect(s.active(at: 10.5).map(\.text) == ["long", "short"])
        #expect(s.active(at: 20).map(\.text) == ["long"])
        #expect(s.active(at: 61).isEmpty)
        #expect(s.active(at: 30).map(\.text) == ["long", "later"])
    }

    @Test func anEmptyBitmapEndsTheCueShowing() {
        let s = store()
        let pixels = SubtitleBitmap(x: 0, y: 0, width: 0.1, height: 0.1, pixelWidth: 1, pixelHeight: 1, rgba: [255, 255, 255, 255])
        let clear = SubtitleBitmap(x: 0, y: 0, width: 0, height: 0, pixelWidth: 0, pixelHeight: 0, rgba: [])
        s.insert([SubtitleCue(start: 1, end: 6, content: .bitmap(pixels))], streamIndex: 2, position: nil)
        s.insert([SubtitleCue(start: 3, end: 3, content: .bitmap(clear))], streamIndex: 2, position: nil)
        #expect(s.cues(track: 0).count == 1)
        #expect(s.cues(track: 0).first?.end == 3)
    }

    @Test func onlyTheSelectedTrackKeepsCues() {
        let s = store()
        s.insert([text(1, 2, "other track")], streamIndex: 3, position: nil)
        #expect(s.cues(track: 1).isEmpty)
        #expect(!s.handles(streamIndex: 3) && s.handles(streamIndex: 2))
        s.insert([text(1, 2, "mine")], streamIndex: 2, position: nil)
        s.select(1)
        #expect(s.cues(track: 0).isEmpty, "switching tracks drops the old track's cues")
        #expect(s.handles(streamIndex: 3))
    }

    @Test func oldCuesArePrunedBehindTheDemuxer() {
        let s = store()
        let many = (0..<300).map { text(Double($0), Double($0) + 1, "cue \($0)") }
        s.insert(many, streamIndex: 2, position: 299)
        let kept = s.cues(track: 0)
        #expect(kept.first!.start >= 299 - SubtitleTracks.keepBehind - 1)
        #expect(kept.last?.text == "cue 299")
    }

    @Test func theCountIsCapped() {
        let s = store()
        let n = SubtitleTracks.maxCues + 500
        let all = (0..<n).map { text(Double($0) * 0.001, Double($0) * 0.001 + 5, "\($0)") }
        s.insert(all, streamIndex: 2, position: nil)
        let kept = s.cues(track: 0)
        #expect(kept.count <= SubtitleTracks.maxCues)
        #expect(kept.last?.text == "\(n - 1)", "the newest cues are kept")
        #expect(s.active(at: Double(n) * 0.001).count <= SubtitleStore.maxActive)
    }

    /// 100,000 cues arriving one packet at a time (issue 32, item 15: a file of 200,000 took
    /// 17.7 s to play its 4 s): past the cap the track is cut to seven eighths of it, so the
    /// passes over it stay a few hundred (one per 256 cues, one per eighth of the cap), not one
    /// per cue.
    @Test func cuesPastTheCapArePrunedInBatches() {
        let s = store()
        let n = 100_000
        for k in 0..<n {
            s.insert([text(Double(k) * 0.00004, Double(k) * 0.00004 + 0.001, "\(k)")], streamIndex: 2, position: Double(k) * 0.00004)
        }
        let kept = s.cues(track: 0)
        #expect(kept.count <= SubtitleTracks.maxCues && kept.last?.text == "\(n - 1)")
        let bound = n / 256 + n / (SubtitleTracks.maxCues / 8) + 2
        #expect(s.prunes(track: 0) <= bound, "\(s.prunes(track: 0)) passes over the cues for \(n) inserts (at most \(bound))")
    }

    @Test func aLatin1SidecarIsReadInItsCodePage() throws {
        let path = NSTemporaryDirectory() + "aether-latin1-\(UUID().uuidString).srt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // "Café déjà vu — naïve" in CP1252 (0x97 is the em dash there).
        let text: [UInt8] = Array("1\r\n00:00:01,000 --> 00:00:02,000\r\nCaf".utf8) + [0xE9] + Array(" d".utf8) + [0xE9]
            + Array("j".utf8) + [0xE0] + Array(" vu ".utf8) + [0x97] + Array(" na".utf8) + [0xEF] + Array("ve\r\n\r\n".utf8)
        try Data(text).write(to: URL(fileURLWithPath: path))
        let s = store()
        let id = try s.addSidecar(path: path)
        #expect(s.cues(track: id).map(\.text) == ["Café déjà vu — naïve"])
    }

    @Test func aSidecarMustBeARegularFile() throws {
        let path = NSTemporaryDirectory() + "aether-fifo-\(UUID().uuidString).srt"
        #expect(mkfifo(path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: SubtitleStore.SidecarError.self) { try store().addSidecar(path: path) }
    }

    @Test func longTextIsCut() {
        let line = String(repeating: "word ", count: 200_000)
        let cut = SubtitleDecoder.limited(line)
        #expect(cut.unicodeScalars.count == SubtitleDecoder.maxCueCharacters + 1)
        #expect(cut.hasSuffix("…"))
    }
}

@Suite struct TimelineTests {
    @Test func measuresFromTheStart() {
        let line = Timeline(origin: 3600)
        let tb = AVRational(num: 1, den: 90_000)
        #expect(line.seconds(3600 * 90_000 + 45_000, tb) == 0.5)
        #expect(line.seconds(nil, tb) == nil)
        #expect(line.seconds(Int64.min, tb) == nil, "AV_NOPTS_VALUE")
        #expect(line.sourceTimestamp(0) == 3_600_000_000)
    }

    @Test func hostileValuesNeverTrap() {
        let line = Timeline(origin: 1.8e19)
        #expect(line.sourceTimestamp(1e300) == Int64.max)
        #expect(line.sourceTimestamp(-.infinity) == Int64.min)
        #expect(Timeline(origin: .nan).origin == 0)
        #expect(Timeline(origin: 0).seconds(5, AVRational(num: 0, den: 0)) == nil)
        #expect(Int(saturating: 9e18 * 1000) == Int.max)
        #expect(Int(saturating: .nan) == 0)
        #expect(Int32(saturating: 2147483648.0 * 2) == Int32.max)
        #expect(1e19.sane(in: 0...1e8) == nil)
    }
}

@Suite struct SourceOptionsTests {
    @Test func headersWithLineBreaksAreRefused() {
        #expect(throws: SourceOptions.InvalidHeader.self) { try SourceOptions.make(headers: ["X-A": "1\r\nEvil: yes"]) }
        #expect(throws: SourceOptions.InvalidHeader.self) { try SourceOptions.make(headers: ["Bad Name": "v"]) }
        let ok = try? SourceOptions.make(headers: ["Cookie": "a=1, b=2"])
        #expect(ok?["headers"] == "Cookie: a=1, b=2\r\nAccept-Encoding: identity\r\n")
        let own = try? SourceOptions.make(headers: ["accept-encoding": "gzip"])
        #expect(own?["headers"] == "accept-encoding: gzip\r\n", "the user's own Accept-Encoding wins")
        #expect(ok?["protocol_whitelist"] == SourceOptions.protocolWhitelist)
    }

    @Test func aCommaInsideAValueStaysThere() {
        let fields = SourceOptions.splitFields("Cookie: a=1, b=2, X-Token: abc, Accept: text/html, */*")
        #expect(fields.map(\.name) == ["Cookie", "X-Token", "Accept"])
        #expect(fields.map(\.value) == ["a=1, b=2", "abc", "text/html, */*"])
    }
}

@Suite struct EncryptionScanTests {
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = 8 + payload.count
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
    }

    /// `moov/trak/mdia/minf/stbl/stsd` around one sample entry, as a real header nests it.
    func header(entry: [UInt8]) -> [UInt8] {
        let stsd = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + entry)
        return box("ftyp", Array("isom".utf8) + [0, 0, 2, 0])
            + box("moov", box("mvhd", [UInt8](repeating: 0, count: 100))
                + box("trak", box("tkhd", [UInt8](repeating: 0, count: 84))
                    + box("mdia", box("mdhd", [UInt8](repeating: 0, count: 24))
                        + box("minf", box("stbl", stsd + box("stts", [UInt8](repeating: 0, count: 8)))))))
    }

    func sinf(original: String, scheme: String) -> [UInt8] {
        box("sinf", box("frma", Array(original.utf8)) + box("schm", [0, 0, 0, 0] + Array(scheme.utf8) + [0, 1, 0, 0])
            + box("schi", box("tenc", [UInt8](repeating: 0, count: 24))))
    }

    @Test func findsProtectedSampleEntriesAndTheScheme() {
        let encv = box("encv", [UInt8](repeating: 0, count: 78) + box("avcC", [1, 2, 3]) + sinf(original: "avc1", scheme: "cbcs"))
        let found = EncryptionScan.scan(bytes: header(entry: encv) + box("mdat", [UInt8](repeating: 9, count: 64)))
        #expect(found == EncryptionScan.Finding(video: true, audio: false, scheme: "cbcs"))
    }

    @Test func findsAQuickTimeAudioEntryInAHeaderCutShort() {
        // A sound description version 1 (16 more bytes before its boxes), the file cut off in
        // the middle of the boxes after `stsd` (the scan reads only the first megabytes).
        var fields = [UInt8](repeating: 0, count: 28 + 16)
        fields[9] = 1
        let enca = box("enca", fields + sinf(original: "mp4a", scheme: "cenc"))
        let whole = header(entry: enca)
        let found = EncryptionScan.scan(bytes: Array(whole.dropLast(10)))
        #expect(found == EncryptionScan.Finding(video: false, audio: true, scheme: "cenc"))
    }

    @Test func plainFilesAndStrayLettersAreNotEncrypted() {
        #expect(EncryptionScan.scan(bytes: box("moov", box("trak", box("stsd", box("avc1", [UInt8](repeating: 7, count: 90)))))) == nil)
        // "encv" in payload bytes without a plausible box size before it.
        #expect(EncryptionScan.scan(bytes: [0xFF, 0xFF, 0xFF, 0xFF] + Array("encv".utf8) + [1, 2, 3]) == nil)
        // A sample entry's name in media data, or outside an `stsd`, is not a sample entry.
        #expect(EncryptionScan.scan(bytes: box("mdat", box("encv", [UInt8](repeating: 0, count: 90)))) == nil)
        #expect(EncryptionScan.scan(bytes: box("moov", box("trak", box("encv", [UInt8](repeating: 0, count: 90))))) == nil)
    }
}

@Suite struct Windows1252Tests {
    @Test func embeddedTextThatIsNotUTF8IsReadAsWindows1252() {
        let bytes: [CChar] = ([0x43, 0x61, 0x66, 0xE9, 0x20, 0x97, 0x20, 0x80, 0] as [UInt8]).map { CChar(bitPattern: $0) }
        #expect(bytes.withUnsafeBufferPointer { SubtitleDecoder.limitedCString($0.baseAddress!) } == "Café — €")
        let utf8 = Array("Café — ok".utf8CString)
        #expect(utf8.withUnsafeBufferPointer { SubtitleDecoder.limitedCString($0.baseAddress!) } == "Café — ok")
    }
}

/// The object sizes a PGS packet claims, read before libavcodec allocates them.
struct PGSObjectsTests {
    /// A segment: type, 16-bit length, payload.
    static func segment(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [type, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    }

    /// An object definition's first fragment claiming `width`×`height`.
    static func object(width: Int, height: Int, first: Bool = true) -> [UInt8] {
        segment(0x15, [0, 1, 0, first ? 0xC0 : 0x40, 0, 0, 4,
                       UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF), 0, 0])
    }

    static func side(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBufferPointer { PGSObjects.largestSide($0) } }

    @Test func theLargestClaimedSideIsFound() {
        let presentation = Self.segment(0x16, [0x07, 0x80, 0x04, 0x38, 0x10, 0, 0, 0x80, 0, 0, 0])
        #expect(Self.side(presentation + Self.object(width: 1920, height: 200) + Self.segment(0x80, [])) == 1920)
        #expect(Self.side(Self.object(width: 12800, height: 12800)) == 12800)
        #expect(Self.side(Self.object(width: 300, height: 9000) + Self.object(width: 100, height: 100)) == 9000)
        // A continuation fragment carries no size; nothing else claims one.
        #expect(Self.side(Self.object(width: 60000, height: 60000, first: false)) == 0)
        #expect(Self.side(presentation) == 0)
    }

    @Test func truncatedAndHostilePacketsEndTheWalk() {
        let whole = Self.object(width: 12800, height: 12800)
        // Cut before the height's last byte: no claim read; after it, the claim counts.
        for cut in 0..<whole.count {
            #expect(Self.side(Array(whole.prefix(cut))) == (cut >= 14 ? 12800 : 0), "cut at \(cut)")
        }
        #expect(Self.side([]) == 0)
        // A length running past the packet, and a zero length repeated: no overrun, no hang.
        #expect(Self.side([0x15, 0xFF, 0xFF, 0, 1]) == 0)
        #expect(Self.side([UInt8](repeating: 0, count: 30_000)) == 0)
    }
}
