import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Tier: cli. Images play as mpv plays them (issue 48, 4): each stays `--image-display-duration`
/// (default 1 s; `inf` until the user moves on), a list of them is a slideshow, and a JPEG's EXIF
/// orientation turns it upright.
struct ImageTests {
    /// SMPTE bars (320×240: grey on the left … blue on the right) as JPEG, with an EXIF APP1
    /// segment whose orientation is `orientation`, and a PNG test pattern.
    static func images() throws -> (dir: String, jpeg: String, png: String) {
        let dir = NSTemporaryDirectory() + "aether-images-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let plain = dir + "/bars-plain.jpg", png = dir + "/pattern.png", jpeg = dir + "/bars-exif6.jpg"
        for (source, path) in [("smptebars=s=320x240", plain), ("testsrc2=s=320x240", png)] {
            let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1", path], timeout: 30)
            try #require(r.status == 0, "ffmpeg: \(r.stderr)")
        }
        // TIFF, big-endian: IFD0 with one entry, 0x0112 (orientation) SHORT 1 = 6.
        let tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let app1 = Array("Exif\0\0".utf8) + tiff
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1
        try Data(Array(bytes[0..<2]) + segment + Array(bytes[2...])).write(to: URL(fileURLWithPath: jpeg))
        try FileManager.default.removeItem(atPath: plain)
        return (dir, jpeg, png)
    }

    @Test func eachImageStaysItsDurationThenTheNextPlays() throws {
        let (dir, jpeg, png) = try Self.images()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (r, s) = try PlayerRuns.headless([png, jpeg, "--image-display-duration=0.6", "--no-config"], timeout: 20)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(s.count == 2 && s.allSatisfy { $0.wallSeconds >= 0.6 && $0.frames.presented == 1 },
                "\(s.map { ($0.wallSeconds, $0.frames.presented) })")
        // The directory is the same slideshow, in natural order.
        let (d, ds) = try PlayerRuns.headless([dir, "--image-display-duration=0.1", "--no-config"], timeout: 20)
        #expect(d.status == 0 && ds.compactMap { $0.item.source.map { ($0 as NSString).lastPathComponent } } == ["bars-exif6.jpg", "pattern.png"],
                "\(d.stderr)")
        let (bad, _) = try PlayerRuns.headless([png, "--image-display-duration=-1"], timeout: 10)
        #expect(bad.status == 1 && bad.stderr.contains("--image-display-duration"), "\(bad.stderr)")
    }

    /// `inf` holds the picture until `>` (held an hour on the controller's clock: ImageHoldTests); the JPEG turned by its EXIF orientation 6 (90° clockwise):
    /// its leftmost column (the grey bar) on top and its rightmost (the blue bar over two thirds of
    /// the height, which now run from the right) at the bottom, on the right.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func infHoldsTheImageAndExifTurnsItUpright() throws {
        let (dir, jpeg, png) = try Self.images()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try TmuxSession([TestEnvironment.binary, jpeg, png, "--vo=halfblock", "--ao=null", "--no-config",
                                 "--image-display-duration=inf", "--vo-halfblock-colors=truecolor"], columns: 80, rows: 40)
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains("bars-exif6.jpg") }, "\(s.screen())")
        #expect(s.waitFor(5) { $0.contains(" 240×320 ") }, "\(s.screen())")
        var picture: [[PaneColours.RGB]] = []
        _ = waitUntil(5, interval: 0.1) {
            picture = s.colours().rows.map { $0.compactMap { $0 } }.filter { $0.count > 10 }
            return picture.count > 12
        }
        try #require(picture.count > 12, "no picture: \(s.screen())")
        func mean(_ rows: ArraySlice<[PaneColours.RGB]>) -> (r: Int, g: Int, b: Int) {
            let cells = rows.flatMap { $0 }
            return (cells.map(\.r).reduce(0, +) / cells.count, cells.map(\.g).reduce(0, +) / cells.count, cells.map(\.b).reduce(0, +) / cells.count)
        }
        let top = mean(picture.prefix(picture.count / 8))
        // The blue bar is the last seventh of the rows now: its middle rows, right half.
        let bottom = mean(picture.suffix(picture.count / 9).dropLast(1).map { Array($0.suffix($0.count / 2)) }[...])
        #expect(abs(top.r - top.b) < 40 && top.r > 120, "the top is not the grey bar: \(top)")
        #expect(bottom.b > bottom.r + 40, "the bottom is not the blue bar: \(bottom)")
        // Still there (how long `inf` holds it is ImageHoldTests', on a manual clock), then `>` moves on.
        #expect(s.screen().contains("bars-exif6.jpg"))
        s.send(">")
        #expect(s.waitFor(5) { $0.contains("pattern.png") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}
