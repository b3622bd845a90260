import AetherEngine
@testable import AetherMedia
@testable import AetherStills
import AetherTestSupport
import Foundation
import CFFmpeg
import Testing

/// The FrameExtractor on `frames-numbered.mkv` (320x240 24 fps 10 s, a keyframe every 24
/// frames, each frame showing its own number as eight stripes): thumbnails come from the
/// keyframe at or before the time, snapshots are the exact frame, a burst delivers only its
/// last request, idle close and shutdown free the decoder.
@Suite struct FrameExtractorTests {
    static let numbered = TestEnvironment.fixture("frames-numbered.mkv")

    @Test(arguments: [0.0, 0.5, 3.5, 3.99, 7.0, 9.2])
    func thumbnailIsTheKeyframeAtOrBefore(seconds: Double) async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        let image = try #require(try await extractor.thumbnail(at: seconds))
        await extractor.shutdown()
        let keyframe = seconds.rounded(.down)
        #expect(image.width == 320 && image.height == 240)
        #expect(image.isKeyframe)
        #expect(abs(image.seconds - keyframe) < 0.001)
        #expect(StillReference.frameNumber(image.pixels, width: 320) == Int(keyframe) * 24)
    }

    @Test func thumbnailIsScaledToMaxWidthKeepingTheAspect() async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        let small = try #require(try await extractor.thumbnail(at: 2.5, maxWidth: 160))
        #expect(small.width == 160 && small.height == 120)
        #expect(StillReference.frameNumber(small.pixels, width: 160, stripe: 20, row: 60) == 48)
        // Never enlarged past the source.
        let wide = try #require(try await extractor.thumbnail(at: 2.5, maxWidth: 1000))
        #expect(wide.width == 320 && wide.height == 240)
        await extractor.shutdown()
    }

    /// Frame boundaries and times inside a frame's interval (3.51 s is inside frame 84,
    /// 3.5–3.5417 s); ffmpeg's `-ss` frame at the frame's own start is the reference.
    @Test(arguments: [0.0, 3.5, 3.51, 5.54, 7.99, 9.9])
    func snapshotIsTheExactFrame(seconds: Double) async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        let image = try #require(try await extractor.snapshot(at: seconds))
        await extractor.shutdown()
        let number = Int((seconds * 24 + 1e-6).rounded(.down))
        #expect(image.width == 320 && image.height == 240)
        #expect(StillReference.frameNumber(image.pixels, width: 320) == number)
        #expect(abs(image.seconds - Double(number) / 24) < 0.002)
        #expect(image.isKeyframe == (number % 24 == 0))
        let reference = try #require(StillReference.ffmpegFrame(Self.numbered, at: Double(number) / 24))
        let psnr = StillReference.psnr(image.pixels, reference)
        #expect(psnr >= 35, "PSNR \(psnr) dB against ffmpeg's frame \(number)")
    }

    @Test func requestsPastTheEndTakeTheLastFrame() async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        let snapshot = try #require(try await extractor.snapshot(at: 500))
        #expect(StillReference.frameNumber(snapshot.pixels, width: 320) == 239)
        let thumbnail = try #require(try await extractor.thumbnail(at: 11))
        #expect(StillReference.frameNumber(thumbnail.pixels, width: 320) == 216)
        #expect(await extractor.duration.map { abs($0 - 10) < 0.05 } == true)
        let start = try #require(try await extractor.thumbnail(at: -3))
        #expect(StillReference.frameNumber(start.pixels, width: 320) == 0)
        await extractor.shutdown()
    }

    /// Twenty requests queued one after another while none has finished (the extraction thread
    /// is held busy until all twenty have begun): only the last is answered, the others return nil.
    @MainActor @Test func burstOfTwentyDeliversOnlyTheLast() async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        await extractor.prewarm()
        let release = DispatchSemaphore(value: 0)
        // Occupies the extraction thread until `release`: requests made meanwhile queue behind it.
        #expect(extractor.thread.submit { _ in release.wait() })
        var tasks: [Task<StillImage?, Error>] = []
        for n in 0..<20 {
            let seconds = 0.2 + Double(n) * 0.45
            tasks.append(Task { @MainActor in
                n % 3 == 2 ? try await extractor.snapshot(at: seconds) : try await extractor.thumbnail(at: seconds)
            })
            // In order: request n has begun before request n + 1 is made (a condition the
            // extractor signals, not a poll).
            await extractor.requestsBegan(n + 1)
        }
        release.signal()
        var results: [StillImage?] = []
        for task in tasks { results.append(try await task.value) }
        let stats = await extractor.statistics
        await extractor.shutdown()
        #expect(results.prefix(19).allSatisfy { $0 == nil }, "delivered: \(results.enumerated().filter { $0.1 != nil }.map(\.0))")
        let last = try #require(results[19])
        // Request 19: a thumbnail at 8.75 s, the keyframe at 8 s (frame 192).
        #expect(StillReference.frameNumber(last.pixels, width: 320) == 192)
        #expect(stats.superseded == 19)
        #expect(stats.decodes < 20, "superseded requests still queued are never decoded")
    }

    /// The idle close waits on the extractor's clock (#60 item 3): on a manual one it comes
    /// exactly `idleTimeout` after the last request, and the test awaits it (no sleep, no poll).
    @Test func idleCloseReleasesTheDecoderAndDropsTheCache() async throws {
        let time = ManualTimeSource()
        let extractor = FrameExtractor(url: Self.numbered, idleTimeout: 0.3, clock: time.source)
        // Nothing else moves the clock: the request is at 0 ms, the close at 300.
        _ = try await extractor.thumbnail(at: 4)
        await extractor.idleWatcherEnded()
        var stats = await extractor.statistics
        #expect(time.milliseconds == 300, "closed \(time.milliseconds) ms after the last request")
        #expect(!stats.isOpen)
        #expect(stats.thumbnailsCached == 0 && stats.cacheBytes == 0)
        // The next request reopens lazily.
        let image = try #require(try await extractor.thumbnail(at: 4))
        #expect(StillReference.frameNumber(image.pixels, width: 320) == 96)
        // (Its own idle close may already have come: the manual clock passes at once.)
        #expect(await extractor.statistics.opens == 2)
        await extractor.shutdown()
        #expect(await extractor.statistics.isOpen == false)
    }

    @Test func cacheAnswersTheSameSecondAndNeverScalesUp() async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        let first = try #require(try await extractor.thumbnail(at: 3.2, maxWidth: 160))
        let again = try #require(try await extractor.thumbnail(at: 3.7, maxWidth: 160))
        var stats = await extractor.statistics
        #expect(first == again)
        #expect(stats.decodes == 1 && stats.cacheHits == 1 && stats.thumbnailsCached == 1)
        #expect(stats.cacheBytes == 160 * 120 * 3)
        // Wider than the cached one: decoded again, not scaled up.
        let wider = try #require(try await extractor.thumbnail(at: 3.5, maxWidth: 320))
        #expect(wider.width == 320)
        stats = await extractor.statistics
        #expect(stats.decodes == 2 && stats.thumbnailsCached == 1)
        #expect(await extractor.cachedThumbnail(at: 3.9)?.width == 320)
        #expect(await extractor.cachedThumbnail(at: 4.1) == nil)
        // Snapshots: their own store, a hit only inside the cached frame's interval.
        _ = try await extractor.snapshot(at: 3.5)
        _ = try await extractor.snapshot(at: 3.52)
        let other = try #require(try await extractor.snapshot(at: 3.46))
        #expect(StillReference.frameNumber(other.pixels, width: 320) == 83)
        stats = await extractor.statistics
        // 3.46 s shares 3.5 s's 0.1 s bucket but is the frame before: decoded, and replaces it.
        #expect(stats.decodes == 4 && stats.cacheHits == 3 && stats.snapshotsCached == 1)
        _ = try await extractor.snapshot(at: 5)
        _ = try await extractor.snapshot(at: 6)
        #expect(await extractor.statistics.snapshotsCached == 2, "two snapshots at most")
        await extractor.clearCache()
        #expect(await extractor.statistics.cacheBytes == 0)
        await extractor.shutdown()
    }

    @Test func displayRotationIsApplied() async throws {
        let file = TestEnvironment.fixture("frames-rotate90.mp4")
        let extractor = FrameExtractor(url: file, clock: .monotonic)
        let image = try #require(try await extractor.snapshot(at: 1.25))
        #expect(image.width == 240 && image.height == 320)
        let reference = try #require(StillReference.ffmpegFrame(file, at: 1.25))
        let psnr = StillReference.psnr(image.pixels, reference)
        #expect(psnr >= 35, "PSNR \(psnr) dB against ffmpeg's autorotated frame")
        let thumbnail = try #require(try await extractor.thumbnail(at: 1.25, maxWidth: 120))
        #expect(thumbnail.width == 120 && thumbnail.height == 160)
        await extractor.shutdown()
    }

    @Test func sampleAspectRatioIsApplied() async throws {
        let file = TestEnvironment.fixture("frames-sar2.mkv")
        let extractor = FrameExtractor(url: file, clock: .monotonic)
        let image = try #require(try await extractor.snapshot(at: 1.5))
        #expect(image.width == 320 && image.height == 240)
        #expect(StillReference.frameNumber(image.pixels, width: 320) == 36)
        let reference = try #require(StillReference.ffmpegFrame(file, at: 1.5, filter: "scale=320:240:flags=bilinear"))
        let psnr = StillReference.psnr(image.pixels, reference)
        #expect(psnr >= 30, "PSNR \(psnr) dB against ffmpeg's frame stretched to 320x240")
        let thumbnail = try #require(try await extractor.thumbnail(at: 1.5, maxWidth: 160))
        #expect(thumbnail.width == 160 && thumbnail.height == 120)
        await extractor.shutdown()
    }

    /// PQ sources go through playback's tone map; ffmpeg's zscale/tonemap chain is the reference.
    @Test func hdrIsToneMappedLikePlayback() async throws {
        let file = TestEnvironment.fixture("hevc10-hdr10-ac3-51-movtext.mp4")
        let extractor = FrameExtractor(url: file, clock: .monotonic)
        let image = try #require(try await extractor.snapshot(at: 1.0))
        await extractor.shutdown()
        let chain = ToneMapper.chain(size: PixelSize(width: image.width, height: image.height), transfer: AVCOL_TRC_SMPTE2084)
        let reference = try #require(StillReference.ffmpegFrame(file, at: 1.0, filter: chain))
        let psnr = StillReference.psnr(image.pixels, reference)
        #expect(psnr >= 35, "PSNR \(psnr) dB against ffmpeg's tone-mapped frame")
        let untouched = try #require(StillReference.ffmpegFrame(file, at: 1.0))
        #expect(StillReference.psnr(image.pixels, untouched) < psnr, "closer to the tone-mapped picture than to the raw one")
    }

    @Test func pngDecodesBackToTheSamePixels() async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        let image = try #require(try await extractor.snapshot(at: 6.1, maxWidth: 200))
        await extractor.shutdown()
        #expect(image.width == 200 && image.height == 150)
        let path = NSTemporaryDirectory() + "aether-png-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try PNGWriter.write(image, to: path)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(StillReference.decodeImage(path) == image.pixels)
    }

    @Test func shutdownIsFinalAndErrorsCarryFFmpegsWords() async throws {
        let extractor = FrameExtractor(url: Self.numbered, clock: .monotonic)
        _ = try await extractor.thumbnail(at: 1)
        await extractor.shutdown()
        #expect(await extractor.statistics.isOpen == false)
        await #expect(throws: FrameExtractorError.shutDown) { try await extractor.thumbnail(at: 1) }

        let missing = FrameExtractor(url: "/nonexistent/aether.mkv", clock: .monotonic)
        do {
            _ = try await missing.thumbnail(at: 0)
            Issue.record("a missing file gave a picture")
        } catch let error as FFmpegError {
            #expect(error.function == "avformat_open_input")
            #expect(error.message == "No such file or directory")
        }
        await missing.shutdown()
        let badHeader = FrameExtractor(url: Self.numbered, headers: ["X-Bad": "a\r\nInjected: 1"], clock: .monotonic)
        await #expect(throws: FrameExtractorError.self) { try await badHeader.thumbnail(at: 0) }
        await badHeader.shutdown()
    }

    @Test func geometryFitsRotatesAndStretches() {
        let square = StillGeometry(codedWidth: 1920, codedHeight: 1080, sampleAspect: 1, rotation: 0)
        #expect(square.outputSize(maxWidth: 320, maxHeight: nil) == PixelSize(width: 320, height: 180))
        #expect(square.outputSize(maxWidth: 4000, maxHeight: 270) == PixelSize(width: 480, height: 270))
        let anamorphic = StillGeometry(codedWidth: 720, codedHeight: 576, sampleAspect: 64.0 / 45, rotation: 0)
        #expect(anamorphic.displaySize == PixelSize(width: 1024, height: 576))
        let turned = StillGeometry(codedWidth: 1920, codedHeight: 1080, sampleAspect: 1, rotation: 270)
        #expect(turned.displaySize == PixelSize(width: 1080, height: 1920))
        #expect(turned.scaledSize(for: PixelSize(width: 180, height: 320)) == PixelSize(width: 320, height: 180))
        // A 2x1 picture [A B] turned a quarter counter-clockwise is [B; A], clockwise [A; B].
        let pixels: [UInt8] = [1, 1, 1, 2, 2, 2]
        #expect(StillGeometry.rotate(pixels, width: 2, height: 1, degrees: 90) == [2, 2, 2, 1, 1, 1])
        #expect(StillGeometry.rotate(pixels, width: 2, height: 1, degrees: 270) == [1, 1, 1, 2, 2, 2])
        #expect(StillGeometry.rotate(pixels, width: 2, height: 1, degrees: 180) == [2, 2, 2, 1, 1, 1])
        #expect(StillFileName.make(source: "/m/My Film.mkv", seconds: 3723.5) == "aether-tui-My_Film-01-02-03.500.png")
    }
}
