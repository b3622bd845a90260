import AetherEngine
@testable import AetherMedia
@testable import AetherStills
import AetherTestSupport
import Foundation
import Testing

/// ``SpriteSheetStills`` over real HTTP: the network fixtures served by `range_http.py` behind
/// the fault proxy. The tile for 10 s is thumbnail 5 (frame 240): it equals ffmpeg's crop of
/// the sheet, and it is the picture of frame 240, not of its neighbours.
@Suite(.serialized) struct SpriteSheetStillsTests {
    static let root = TestEnvironment.fixture("net")
    static let header = "X-Aether-Sprites: sheet-test"

    static func settings() -> NetworkSettings {
        var n = NetworkSettings()
        n.headers = ["X-Aether-Sprites": "sheet-test"]
        return n
    }

    /// ffmpeg's RGB24 crop of a sheet file.
    static func crop(_ sheet: String, x: Int, y: Int) throws -> [UInt8] {
        try #require(StillReference.ffmpegImage(root + "/" + sheet, filter: "crop=160:90:\(x):\(y)"))
    }

    /// Frame `n` (the first of its 2 s segment) of a fixture clip, scaled as the sheets were.
    static func videoFrame(_ file: String, first: Int) throws -> [UInt8] {
        try #require(StillReference.ffmpegFrame(file, at: 0, filter: "select=eq(n\\,\(first)),scale=160:90"))
    }

    /// The DASH clip's video around 10 s (init section + segment 6: frames 240 ... 287) as one file.
    static func dashSegmentSix() throws -> String {
        let path = NSTemporaryDirectory() + "aether-sprites-seg6-\(getpid()).mp4"
        let init_ = try #require(FileManager.default.contents(atPath: root + "/dash-thumbs/init-stream0.m4s"))
        let chunk = try #require(FileManager.default.contents(atPath: root + "/dash-thumbs/chunk-stream0-00006.m4s"))
        try (init_ + chunk).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func dashTileForTenSecondsIsFrame240() async throws {
        let http = try LoopbackHTTP(root: Self.root)
        defer { http.stop() }
        let sprites = SpriteSheetStills(url: http.url("dash-thumbs/manifest.mpd"), network: Self.settings(), clock: .monotonic)
        let started = MonotonicClock.seconds()
        let image = try #require(await sprites.thumbnail(at: 10))
        let elapsed = MonotonicClock.seconds() - started
        #expect(image.width == 160 && image.height == 90)
        #expect(image.seconds == 10 && image.isKeyframe)
        let reference = try Self.crop("dash-thumbs/thumbs/tile1.jpg", x: 0, y: 90)
        let psnr = StillReference.psnr(image.pixels, reference)
        #expect(psnr >= 40, "PSNR \(psnr) dB against ffmpeg's crop of the sheet")
        // The picture is frame 240's, clearly nearer it than the next frame (its counter differs).
        let segment = try Self.dashSegmentSix()
        defer { try? FileManager.default.removeItem(atPath: segment) }
        let frame240 = StillReference.psnr(image.pixels, try Self.videoFrame(segment, first: 0))
        let frame241 = StillReference.psnr(image.pixels, try Self.videoFrame(segment, first: 1))
        print("sprite tile at 10 s: \(String(format: "%.1f", elapsed * 1000)) ms cold (manifest + sheet); PSNR \(psnr) dB vs the sheet crop, \(frame240) dB vs frame 240, \(frame241) dB vs frame 241")
        #expect(frame240 >= 24 && frame240 > frame241 + 4, "frame 240: \(frame240) dB, frame 241: \(frame241) dB")

        // Another tile of the same sheet: no new fetch.
        let twelve = try #require(await sprites.thumbnail(at: 12.5))
        #expect(StillReference.psnr(twelve.pixels, try Self.crop("dash-thumbs/thumbs/tile1.jpg", x: 160, y: 90)) >= 40)
        #expect(await sprites.cachedThumbnail(at: 19)?.seconds == 18)
        // The second sheet, and past the end its last tile.
        let last = try #require(await sprites.thumbnail(at: 1000))
        #expect(last.seconds == 38)
        #expect(StillReference.psnr(last.pixels, try Self.crop("dash-thumbs/thumbs/tile2.jpg", x: 640, y: 90)) >= 40)
        let stats = await sprites.statistics
        #expect(stats.hasTrack && stats.sheetsFetched == 2 && stats.failures == 0 && stats.cachedSheets == 2)
        #expect(stats.bytesFetched == 38530 + 38540)
        #expect(stats.cacheBytes == 2 * 800 * 180 * 3)
        await sprites.shutdown()

        // One request for the manifest and one per sheet, each with the header.
        let log = try http.requests()
        let paths = log.compactMap { $0["path"] as? String }
        #expect(paths.filter { $0 == "/dash-thumbs/manifest.mpd" }.count == 1, "\(paths)")
        #expect(paths.filter { $0 == "/dash-thumbs/thumbs/tile1.jpg" }.count == 1, "\(paths)")
        #expect(paths.filter { $0 == "/dash-thumbs/thumbs/tile2.jpg" }.count == 1, "\(paths)")
        #expect(!paths.contains { $0.hasSuffix(".m4s") }, "video was fetched: \(paths)")
        for entry in log {
            let headers = (entry["headers"] as? [String: String]) ?? [:]
            let value = headers.first { $0.key.lowercased() == "x-aether-sprites" }?.value
            #expect(value == "sheet-test", "\(entry["path"] ?? "?") without the header: \(headers)")
        }
    }

    /// Smaller than the tile: narrowed with the aspect kept.
    @Test func narrowerThanTheTile() async throws {
        let http = try LoopbackHTTP(root: Self.root)
        defer { http.stop() }
        let sprites = SpriteSheetStills(url: http.url("dash-thumbs/manifest.mpd"), network: Self.settings(), clock: .monotonic)
        let image = try #require(await sprites.thumbnail(at: 10, maxWidth: 80))
        #expect(image.width == 80 && image.height == 45)
        let reference = try #require(StillReference.ffmpegImage(Self.root + "/dash-thumbs/thumbs/tile1.jpg",
                                                                 filter: "crop=160:90:0:90,format=rgb24,scale=80:45:flags=area"))
        #expect(StillReference.psnr(image.pixels, reference) >= 35)
        await sprites.shutdown()
    }

    @Test func hlsImagePlaylistTiles() async throws {
        let http = try LoopbackHTTP(root: Self.root)
        defer { http.stop() }
        let sprites = SpriteSheetStills(url: http.url("hls-thumbs/master.m3u8"), network: Self.settings(), clock: .monotonic)
        let track = try #require(await sprites.track())
        #expect(track.origin == .hls && track.sheets.count == 2)
        let ten = try #require(await sprites.thumbnail(at: 10))
        #expect(ten.width == 160 && ten.height == 90 && ten.seconds == 10)
        #expect(StillReference.psnr(ten.pixels, try Self.crop("hls-thumbs/thumbs/tile1.jpg", x: 0, y: 90)) >= 40)
        // Frame 240 is the first of the variant's segment 5.
        let segment = Self.root + "/hls-thumbs/v0/seg005.ts"
        let frame240 = StillReference.psnr(ten.pixels, try Self.videoFrame(segment, first: 0))
        let frame241 = StillReference.psnr(ten.pixels, try Self.videoFrame(segment, first: 1))
        #expect(frame240 >= 24 && frame240 > frame241 + 4, "frame 240: \(frame240) dB, frame 241: \(frame241) dB")
        // The half-full last sheet: past the end, its fifth thumbnail (frame 672), not a black cell.
        let end = try #require(await sprites.thumbnail(at: 35))
        #expect(end.seconds == 28)
        #expect(StillReference.psnr(end.pixels, try Self.crop("hls-thumbs/thumbs/tile2.jpg", x: 640, y: 0)) >= 40)
        await sprites.shutdown()
        let paths = try http.requests().compactMap { $0["path"] as? String }
        #expect(paths.filter { $0.hasPrefix("/hls-thumbs/thumbs/") }.sorted()
                == ["/hls-thumbs/thumbs/index.m3u8", "/hls-thumbs/thumbs/tile1.jpg", "/hls-thumbs/thumbs/tile2.jpg"], "\(paths)")
        #expect(!paths.contains { $0.hasSuffix(".ts") || $0.contains("/v0/") }, "video was fetched: \(paths)")
    }

    /// A sheet the server refuses gives nil (the caller decodes video instead), counted, and is
    /// not asked for again at once; the other sheet still works.
    @Test func aFailedSheetGivesNilAndIsNotRetriedAtOnce() async throws {
        let http = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "tile2\\.jpg$", "status": 404}]"#)
        defer { http.stop() }
        let sprites = SpriteSheetStills(url: http.url("dash-thumbs/manifest.mpd"), network: Self.settings(), clock: .monotonic)
        #expect(await sprites.thumbnail(at: 25) == nil)
        #expect(await sprites.thumbnail(at: 27) == nil)
        #expect(await sprites.thumbnail(at: 5) != nil)
        let stats = await sprites.statistics
        #expect(stats.failures == 1 && stats.sheetsFetched == 1)
        await sprites.shutdown()
        let tile2 = try http.requests().filter { ($0["path"] as? String) == "/dash-thumbs/thumbs/tile2.jpg" }
        #expect(tile2.count == 1)
    }

    /// Not an image: nil, no crash.
    @Test func aSheetThatIsNotAPictureGivesNil() async throws {
        let dir = NSTemporaryDirectory() + "aether-sprites-bad-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir + "/thumbs", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: Self.root + "/dash-thumbs/manifest.mpd", toPath: dir + "/manifest.mpd")
        try Data("<html>not a picture</html>".utf8).write(to: URL(fileURLWithPath: dir + "/thumbs/tile1.jpg"))
        // A JPEG cut in half: the decoder gives a picture or an error, never a crash.
        let jpeg = try #require(FileManager.default.contents(atPath: Self.root + "/dash-thumbs/thumbs/tile2.jpg"))
        try jpeg.prefix(200).write(to: URL(fileURLWithPath: dir + "/thumbs/tile2.jpg"))
        let http = try LoopbackHTTP(root: dir)
        defer { http.stop() }
        let sprites = SpriteSheetStills(url: http.url("manifest.mpd"), network: Self.settings(), clock: .monotonic)
        #expect(await sprites.thumbnail(at: 3) == nil)
        _ = await sprites.thumbnail(at: 23)
        #expect(await sprites.statistics.failures >= 1)
        await sprites.shutdown()
    }

    /// No thumbnail track (a plain DASH manifest, an HLS master without image streams): nil at once.
    @Test func noTrackGivesNil() async throws {
        let http = try LoopbackHTTP(root: Self.root)
        defer { http.stop() }
        for path in ["dash-vod/manifest.mpd", "hls-vod/master.m3u8"] {
            let sprites = SpriteSheetStills(url: http.url(path), network: Self.settings(), clock: .monotonic)
            #expect(await sprites.track() == nil)
            #expect(await sprites.thumbnail(at: 3) == nil)
            #expect(await sprites.statistics.hasTrack == false)
            await sprites.shutdown()
        }
        let paths = try http.requests().compactMap { $0["path"] as? String }
        #expect(paths.sorted() == ["/dash-vod/manifest.mpd", "/hls-vod/master.m3u8"], "\(paths)")
    }

    /// A newer request for another sheet stops a slow download: the older call returns nil, the
    /// newer one its tile, long before the slow sheet could have arrived.
    @Test func aNewerRequestSupersedesASlowSheet() async throws {
        // tile1.jpg at 4 kB/s would take ~10 s.
        let http = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "tile1\\.jpg$", "throttle_bps": 4000}]"#)
        defer { http.stop() }
        let sprites = SpriteSheetStills(url: http.url("dash-thumbs/manifest.mpd"), network: Self.settings(), clock: .monotonic)
        _ = await sprites.track()
        let started = MonotonicClock.seconds()
        async let slow = sprites.thumbnail(at: 4)
        try await Task.sleep(nanoseconds: 500_000_000)
        let fast = await sprites.thumbnail(at: 24)
        let older = await slow
        let elapsed = MonotonicClock.seconds() - started
        #expect(older == nil)
        #expect(fast?.seconds == 24)
        #expect(elapsed < 5, "\(elapsed) s")
        let stats = await sprites.statistics
        #expect(stats.superseded >= 1 && stats.failures == 0 && stats.sheetsFetched == 1)
        await sprites.shutdown()
        // The proxy logs the request once it notices the client went away.
        var cut: [String: Any]?
        for _ in 0..<30 where cut == nil {
            cut = try http.requests().first { ($0["path"] as? String) == "/dash-thumbs/thumbs/tile1.jpg" }
            if cut == nil { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        #expect((cut?["bytes"] as? Int).map { $0 < 38530 } == true, "the slow sheet was not abandoned: \(String(describing: cut))")
    }
}

/// The sheet decoder on its own: a fixture sheet decodes to ffmpeg's pixels; what is not a
/// picture, or claims an absurd size, is refused before any picture memory is taken.
@Suite struct SheetDecoderTests {
    @Test func fixtureSheetDecodesLikeFFmpeg() throws {
        let path = TestEnvironment.fixture("net/hls-thumbs/thumbs/tile2.jpg")
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let sheet = try SheetDecoder.decode([UInt8](bytes))
        #expect(sheet.width == 800 && sheet.height == 180)
        let reference = try #require(StillReference.decodeImage(path))
        #expect(StillReference.psnr(sheet.pixels, reference) >= 45)
    }

    @Test func pngRoundTrip() throws {
        // An 8×4 picture of two colours, written by our own PNG writer.
        var pixels: [UInt8] = []
        for y in 0..<4 { for x in 0..<8 { pixels += (x + y) % 2 == 0 ? [250, 10, 20] : [5, 200, 90] } }
        let still = StillImage(width: 8, height: 4, pixels: pixels, seconds: 0, isKeyframe: true)
        let png = try PNGWriter.encode(still)
        let sheet = try SheetDecoder.decode(png)
        #expect(sheet.width == 8 && sheet.height == 4 && sheet.pixels == pixels)
    }

    /// IHDR rewritten to 60000×60000 (valid CRC): over the pixel cap, an error, no 10 GB buffer.
    @Test func hugeDeclaredSizeIsRefused() throws {
        let still = StillImage(width: 2, height: 2, pixels: [UInt8](repeating: 128, count: 12), seconds: 0, isKeyframe: true)
        var png = try PNGWriter.encode(still)
        // Signature (8), length (4), "IHDR" (4), width (4), height (4) ... CRC after 13 data bytes.
        for offset in [16, 20] { png.replaceSubrange(offset..<(offset + 4), with: [0x00, 0x00, 0xEA, 0x60]) }
        let crc = Self.crc32(Array(png[12..<29]))
        png.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(throws: (any Error).self) { try SheetDecoder.decode(png) }
    }

    @Test func notAPicture() {
        #expect(throws: (any Error).self) { try SheetDecoder.decode(Array("<html>404</html>".utf8)) }
        #expect(throws: (any Error).self) { try SheetDecoder.decode([]) }
        #expect(throws: (any Error).self) { try SheetDecoder.decode([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x41, count: 500)) }
        #expect(throws: (any Error).self) { try SheetDecoder.decode([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]) }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
