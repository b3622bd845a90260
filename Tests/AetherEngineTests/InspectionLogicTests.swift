import AetherEngine
@testable import AetherStructure
import AetherTestSupport
import CFFmpeg
import Testing

@Suite struct StreamSelectionTests {
    @Test func parsesFFprobeStyleSpecifiers() {
        #expect(StreamSelection("0,1")?.items == [.index(0), .index(1)])
        #expect(StreamSelection("v")?.items == [.kind(.video)])
        #expect(StreamSelection("a:1")?.items == [.nth(.audio, 1)])
        #expect(StreamSelection(" s , 2 ,t,d:0")?.items == [.kind(.subtitle), .index(2), .kind(.attachment), .nth(.data, 0)])
        #expect(StreamSelection("a:1,0")?.description == "a:1,0")
    }

    @Test(arguments: ["", ",", "0,", "x", "-1", "v:-1", "a:b", "va", "v:1:2", "99999999999999999999", "1.5"])
    func rejectsMalformedLists(text: String) {
        #expect(StreamSelection(text) == nil)
    }

    static let kinds: [StreamKind] = [.video, .audio, .audio, .subtitle]

    @Test func resolvesAgainstTheFilesStreams() throws {
        #expect(try StreamSelection("a")!.resolve(kinds: Self.kinds) == [1, 2])
        #expect(try StreamSelection("a:1")!.resolve(kinds: Self.kinds) == [2])
        #expect(try StreamSelection("v,3")!.resolve(kinds: Self.kinds) == [0, 3])
        #expect(try StreamSelection("0,0,v:0")!.resolve(kinds: Self.kinds) == [0])
    }

    @Test func namesWhatTheFileLacks() {
        #expect(throws: InspectionError.noSuchStream("no stream 4: the file has 4 streams (0–3)")) {
            try StreamSelection("4")!.resolve(kinds: Self.kinds)
        }
        #expect(throws: InspectionError.noSuchStream("no data stream in the file")) {
            try StreamSelection("d")!.resolve(kinds: Self.kinds)
        }
        #expect(throws: InspectionError.noSuchStream("no stream s:1: the file has 1 subtitle stream")) {
            try StreamSelection("s:1")!.resolve(kinds: Self.kinds)
        }
        #expect(throws: InspectionError.noSuchStream("no stream 0: the file has no streams")) {
            try StreamSelection("0")!.resolve(kinds: [])
        }
    }
}

@Suite struct InspectionNumberTests {
    @Test func timeBasesConvertWithoutTrapping() {
        let ms = StreamTimeBase(num: 1, den: 1000)
        #expect(ms.seconds(1500) == 1.5)
        #expect(ms.seconds(nil) == nil)
        #expect(StreamTimeBase(num: 1, den: 90000).seconds(900_000) == 10)
        #expect(ms.seconds(.min) == -9223372036854775.808)
        #expect(ms.seconds(.max) == 9223372036854775.807)
        let huge = StreamTimeBase(num: .max, den: 1)
        #expect(huge.seconds(.max)?.isFinite == true)
        #expect(huge.seconds(.min)?.isFinite == true)
        for unusable in [(0, 0), (1, 0), (0, 1), (-1, 1000), (1, -1000), (Int32.min, Int32.min)] {
            let tb = StreamTimeBase(num: Int32(unusable.0), den: Int32(unusable.1))
            #expect(!tb.isUsable && tb.seconds(1000) == nil, "\(tb)")
        }
    }

    @Test func doublesBecomeIntegersOnlyClamped() {
        #expect(InspectionMath.int64(.nan) == 0)
        #expect(InspectionMath.int64(.infinity) == .max)
        #expect(InspectionMath.int64(-.infinity) == .min)
        #expect(InspectionMath.int64(1e300) == .max)
        #expect(InspectionMath.int64(-1e300) == .min)
        #expect(InspectionMath.int64(9.3e18) == .max)
        #expect(InspectionMath.int64(1234.9) == 1234)
    }

    @Test func noTimestampIsNil() {
        #expect(InspectionMath.timestamp(aether_AV_NOPTS_VALUE()) == nil)
        #expect(InspectionMath.timestamp(Int64.min + 1) == Int64.min + 1)
        #expect(InspectionMath.timestamp(.max) == .max)
    }

    @Test func secondsTextNeverConvertsToAnInteger() {
        #expect(InspectionMath.secondsText(1.5) == "1.5")
        #expect(InspectionMath.secondsText(2) == "2")
        #expect(InspectionMath.secondsText(1e300).hasPrefix("1000000000"))
        #expect(InspectionMath.secondsText(.infinity) == "inf")
    }

    @Test func decodeErrorFlagsAreNamed() {
        #expect(FrameRecord.errorNames(0) == [])
        #expect(FrameRecord.errorNames(FF_DECODE_ERROR_CONCEALMENT_ACTIVE | FF_DECODE_ERROR_DECODE_SLICES)
                == ["concealment-active", "decode-slices"])
        #expect(FrameRecord.errorNames(1 | 2 | 0x40) == ["invalid-bitstream", "missing-reference", "0x40"])
        #expect(FrameRecord.errorNames(-1).last == "0xfffffff0")
    }
}

/// The library API the CLI formats: value types out, one `.end` last.
@Suite struct InspectorAPITests {
    @Test func packetInspectorReturnsValuesThenOneEnd() throws {
        let inspector = try PacketInspector(url: TestEnvironment.fixture("extreme-timestamps.mkv"),
                                            network: NetworkSettings(), limits: InspectionLimits(count: nil), clock: .monotonic)
        #expect(inspector.streams.map(\.kind) == [.audio])
        #expect(inspector.streams.first?.timeBase == StreamTimeBase(num: 1, den: 1000))
        var packets: [PacketRecord] = []
        var ends: [InspectionEnd] = []
        while let event = inspector.next() {
            switch event {
            case .packet(let p): packets.append(p)
            case .end(let e): ends.append(e)
            }
        }
        #expect(packets.count == 12 && ends.count == 1)
        #expect(ends.first?.reason == .endOfFile && ends.first?.packets == 12)
        #expect(packets.allSatisfy { $0.size == 800 && $0.isKey && $0.duration == 50 })
        #expect(inspector.next() == nil)
    }

    @Test func frameInspectorStopsAtTheCountWithMoreToCome() throws {
        let inspector = try FrameInspector(url: TestEnvironment.fixture("mpeg2-interlaced-mp2.ts"),
                                           network: NetworkSettings(), limits: InspectionLimits(streams: StreamSelection("v")!, count: 3), clock: .monotonic)
        var frames: [FrameRecord] = []
        var end: InspectionEnd?
        while let event = inspector.next() {
            switch event {
            case .frame(let f): frames.append(f)
            case .end(let e): end = e
            case .decodeError, .skipped: Issue.record("unexpected \(event)")
            }
        }
        #expect(frames.map(\.picture.pictureType) == ["I", "B", "B"])
        #expect(end?.reason == .countLimit && end?.frames == 3)
    }

    @Test func absurdLimitsAreClampedNotTrapped() throws {
        for timeout in [Double.infinity, .nan, 1e300, -1, 0] {
            let inspector = try PacketInspector(url: TestEnvironment.fixture("extreme-timestamps.mkv"),
                                                network: NetworkSettings(), limits: InspectionLimits(start: .seconds(1e300), length: .seconds(.infinity),
                                                                         count: -5, readTimeout: timeout), clock: .monotonic)
            guard case .end(let end)? = inspector.next() else { Issue.record("a negative count lists nothing"); continue }
            #expect(end.packets == 0)
        }
    }

    @Test func percentPositionsNeedADuration() {
        #expect(throws: InspectionError.unknownDuration) {
            try PacketInspector(url: TestEnvironment.fixture("nopts.h264"), network: NetworkSettings(), limits: InspectionLimits(start: .percent(50)), clock: .monotonic)
        }
    }

    @Test func openFailuresCarryFFmpegsWords() {
        do {
            _ = try PacketInspector(url: TestEnvironment.fixture("random.mkv"), network: NetworkSettings(), clock: .monotonic)
            Issue.record("random bytes opened")
        } catch {
            guard case .cannotOpen(let e) = error else { Issue.record("\(error)"); return }
            #expect(e.function == "avformat_open_input")
            #expect(e.message == "Invalid data found when processing input")
        }
    }
}
