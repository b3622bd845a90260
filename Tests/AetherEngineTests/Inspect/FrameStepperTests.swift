import AetherEngine
@testable import AetherStructure
import AetherTestSupport
import Foundation
import Testing

/// The inspector's frames tab engine (`FrameStepper`) against ffprobe's `-show_frames`: every
/// frame of a B-frame stream stepped forward and back with ffprobe's pts and picture types, a
/// frame reached from any packet, the damaged file's errors named at the frame they reached
/// (with the packet's byte), colour properties and side data of an HDR10 file, and the picture
/// within the size asked for.
@Suite struct FrameStepperTests {
    struct Reference: Equatable, CustomStringConvertible {
        var pts: Int64
        var type: String
        var description: String { "\(pts)\(type)" }
    }

    /// ffprobe's frames of the first video stream, in presentation order, and their side data.
    static func reference(_ file: String) throws -> (frames: [Reference], sideData: [[String]]) {
        let r = Process.run(["/usr/bin/ffprobe", "-v", "error", "-select_streams", "v:0", "-show_frames",
                             "-show_entries", "frame=pts,best_effort_timestamp,pict_type:side_data=side_data_type",
                             "-of", "json", file], timeout: 60)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        // With a side data section ffprobe lists packets and frames together.
        let frames = try #require((json["frames"] ?? json["packets_and_frames"]) as? [[String: Any]])
            .filter { ($0["type"] as? String ?? "frame") == "frame" }
        return (frames.map { Reference(pts: Int64(($0["best_effort_timestamp"] ?? $0["pts"]) as? Int ?? -1), type: $0["pict_type"] as? String ?? "?") },
                frames.map { (($0["side_data_list"] as? [[String: Any]]) ?? []).compactMap { $0["side_data_type"] as? String } })
    }

    static let size = PixelSize(width: 160, height: 120)

    @Test func everyFrameForwardAndBackWithFFprobesPictureTypes() throws {
        let file = TestEnvironment.fixture("h264-bframes.mkv")
        let refs = try Self.reference(file).frames
        try #require(refs.count > 100 && refs.contains { $0.type == "B" }, "ffprobe: \(refs.count) frames")
        let stepper = try FrameStepper(url: file, stream: 0, maxSize: Self.size, network: NetworkSettings(), clock: .monotonic)
        var forward: [Reference] = []
        var result = stepper.frame(at: refs[0].pts)
        while case .success(let f) = result, forward.count <= refs.count {
            forward.append(Reference(pts: f.record.times.pts ?? -1, type: f.record.picture.pictureType ?? "?"))
            #expect(f.still.width > 0 && f.still.width <= Self.size.width && f.still.height <= Self.size.height)
            result = stepper.next()
        }
        #expect(forward == refs, "forward \(forward.suffix(5)) ffprobe \(refs.suffix(5)); differs from ffprobe at \(Array(zip(forward, refs)).firstIndex { $0.0 != $0.1 } ?? min(forward.count, refs.count))")
        // Past the last frame: a refusal, not a crash or a repeat.
        if case .success(let extra) = result { Issue.record("a frame after the last: \(String(describing: extra.record.times.pts))") }
        // Backwards from the last frame across three GOPs (each step decodes its GOP again).
        var backward: [Reference] = []
        for _ in 0..<72 {
            guard case .success(let f) = stepper.previous() else { break }
            backward.append(Reference(pts: f.record.times.pts ?? -1, type: f.record.picture.pictureType ?? "?"))
        }
        #expect(backward == Array(refs.dropLast().suffix(72).reversed()), "backward: \(backward.count); first difference \(Array(zip(backward, refs.dropLast().suffix(72).reversed())).first { $0.0 != $0.1 }.map { "\($0.0) for \($0.1)" } ?? "none")")
        // From the first frame, back is refused.
        _ = stepper.frame(at: refs[0].pts)
        if case .success(let f) = stepper.previous() { Issue.record("a frame before the first: \(String(describing: f.record.times.pts))") }
    }

    /// Any frame is reached from its own pts (a B frame in the middle of a GOP too), and a pts
    /// between frames gives the next one.
    @Test func aFrameReachedFromAnyPacket() throws {
        let file = TestEnvironment.fixture("h264-bframes.mkv")
        let refs = try Self.reference(file).frames
        let stepper = try FrameStepper(url: file, stream: 0, maxSize: Self.size, network: NetworkSettings(), clock: .monotonic)
        for i in [refs.count - 1, 37, 5, 0, refs.count / 2] {
            let got = try stepper.frame(at: refs[i].pts).get()
            #expect(Reference(pts: got.record.times.pts ?? -1, type: got.record.picture.pictureType ?? "?") == refs[i])
        }
        let between = try stepper.frame(at: refs[10].pts + 1).get()
        #expect(between.record.times.pts == refs.map(\.pts).filter { $0 > refs[10].pts }.min())
    }

    /// damaged-h264.mkv: the packet at 1.5 s is refused by the decoder (its error is named, with
    /// the packet's byte, on the frame after it) and the one at 2.5 s is concealed (its
    /// frame's decode error flags, as ffprobe's). Every frame is still reached.
    @Test func decodeErrorsAreShownWhereTheyHappen() throws {
        let file = TestEnvironment.fixture("damaged-h264.mkv")
        let ref = try Self.reference(file)
        let stepper = try FrameStepper(url: file, stream: 0, maxSize: Self.size, network: NetworkSettings(), clock: .monotonic)
        var frames: [SteppedFrame] = []
        var result = stepper.frame(at: ref.frames[0].pts)
        while case .success(let f) = result, frames.count <= ref.frames.count + 2 {
            frames.append(f)
            result = stepper.next()
        }
        #expect(frames.count == ref.frames.count, "\(frames.count) frames stepped, ffprobe decodes \(ref.frames.count)")
        let withErrors = frames.filter { !$0.errors.isEmpty }
        #expect(withErrors.count >= 1, "no decode error named")
        for f in withErrors {
            let at = f.record.times.ptsTime ?? -1
            #expect(at > 1.5 && at < 2.0, "an error named at \(at) s: \(f.errors)")
            #expect(f.errors.contains { $0.contains("packet at byte ") && $0.contains("Invalid data") }, "\(f.errors)")
        }
        let flagged = frames.filter { $0.record.damage.decodeErrorFlags != 0 }.map { $0.record.times.pts ?? -1 }
        // ffprobe 5.1 does not print decode_error_flags: the concealed packet is the one at 2.5 s.
        let concealed = frames.filter { $0.record.damage.decodeErrorFlags != 0 }.compactMap(\.record.times.ptsTime)
        #expect(concealed.count == 1 && concealed.allSatisfy { $0 >= 2.5 && $0 < 2.55 }, "flags on \(flagged)")
    }

    /// HDR10 HEVC: the colour properties and side data of the first frame as ffprobe names them,
    /// and the picture tone-mapped (not the dim PQ signal).
    @Test func colourPropertiesAndSideDataOfAnHDR10Frame() throws {
        let file = TestEnvironment.fixture("hevc10-hdr10-ac3-51-movtext.mp4")
        let ref = try Self.reference(file)
        let stepper = try FrameStepper(url: file, stream: 0, maxSize: Self.size, network: NetworkSettings(), clock: .monotonic)
        let f = try stepper.frame(at: ref.frames[0].pts).get()
        let props = Dictionary(f.properties.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(props["transfer"] == "smpte2084" && props["primaries"] == "bt2020" && props["matrix"] == "bt2020nc", "\(props)")
        // Names, not how often (ffprobe's frame once carried two unregistered SEI messages).
        #expect(Set(f.sideData) == Set(ref.sideData[0]) && !f.sideData.isEmpty, "side data \(f.sideData), ffprobe \(ref.sideData[0])")
        #expect(f.record.picture.pictureType == ref.frames[0].type)
        #expect(f.still.width <= Self.size.width && f.still.height <= Self.size.height)
    }

    @Test func aFileThatIsNotMediaIsOneError() {
        #expect(throws: InspectionError.self) { try FrameStepper(url: TestEnvironment.fixture("random.mkv"), stream: 0, maxSize: Self.size, network: NetworkSettings(), clock: .monotonic) }
        #expect(throws: InspectionError.self) { try FrameStepper(url: TestEnvironment.fixture("sine-1k.mkv"), stream: 5, maxSize: Self.size, network: NetworkSettings(), clock: .monotonic) }
    }
}
