import AetherTestSupport
import EndToEndSupport
import Foundation
import TerminalGraphics
import TerminalPictures
import Testing

/// The cell outputs in a real terminal emulator (tmux): the pane's cells decoded back into
/// pixels and compared with the frame on screen, mode by mode.
@Suite(.serialized) struct CellOutputTests {
    static let clip = TestEnvironment.fixture("h264-720p.mkv")

    /// The picture the pane shows, found as the block-character cells, and its PSNR against the
    /// frame at `seconds` (the player's own snapshot of it) on the same sub-cell grid.
    struct Seen {
        var rect: CellRect
        var psnr: Double
        var otherCharacters: Int
    }

    static func judge(_ screen: String, columns: Int, rows: Int, reference: [UInt8], width: Int, height: Int) -> Seen? {
        var decoder = CellStreamDecoder(columns: columns, rows: rows)
        decoder.feed(Array(screen.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        // The picture: the bounding box of cells that carry a 24-bit colour and a block character,
        // on rows with at least one block character other than a space (not the title or the bar).
        var minX = columns, minY = rows, maxX = -1, maxY = -1
        for y in 0..<rows {
            guard (0..<columns).contains(where: { decoder[$0, y].scalar != 0x20 && CellSymbols.coverage(of: decoder[$0, y].scalar) != nil })
            else { continue }
            for x in 0..<columns {
                let c = decoder[x, y]
                guard CellSymbols.coverage(of: c.scalar) != nil else { continue }
                if case .rgb = c.bg {} else if case .rgb = c.fg {} else { continue }
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        guard maxX >= minX, maxY >= minY else { return nil }
        let rect = CellRect(column: minX, row: minY, width: maxX - minX + 1, height: maxY - minY + 1)
        var others = 0
        for y in rect.row..<rect.endRow {
            for x in rect.column..<rect.endColumn where CellSymbols.coverage(of: decoder[x, y].scalar) == nil { others += 1 }
        }
        let grid = PictureQuality.areaAverage(reference, width: width, height: height, toWidth: rect.width * 2, toHeight: rect.height * 12)
        return Seen(rect: rect, psnr: PictureQuality.psnr(decoder.pixels(of: rect, gridRows: 12), grid), otherCharacters: others)
    }

    /// Paused at 2 s, each mode draws the frame; finer modes show it closer, and no character
    /// other than the block elements and sextants lands in the picture.
    @Test func eachCellModeShowsTheFrameInTmux() throws {
        let still = NSTemporaryDirectory() + "aether-cells-ref-\(getpid()).png"
        defer { try? FileManager.default.removeItem(atPath: still) }
        let extract = Process.run([TestEnvironment.binary, "extract", Self.clip, "--at", "2", "--snapshot", "-o", still], timeout: 30)
        try #require(extract.status == 0, "extract failed: \(extract.stderr)")
        let reference = try #require(StillReference.decodeImage(still))
        try #require(reference.count == 1280 * 720 * 3)
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        var seen: [String: Seen] = [:]
        for mode in ["half", "quadrant", "sextant"] {
            let s = try TmuxSession([TestEnvironment.binary, Self.clip, "--vo=cells", "--vo-cells=\(mode)", "--vo-cells-tolerance=0",
                                     "--ao=null", "--pause", "--start=2"], columns: 100, rows: 30, environment: env)
            defer { s.close() }
            #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "\(mode): the transport bar never appeared:\n\(s.screen())")
            // The --start seek over (» becomes ‖) and the picture drawn.
            try #require(s.waitForPausedPicture() != nil, "\(mode): the paused picture never settled:\n\(s.screen())")
            // -N: tmux trims trailing spaces even when they have a background colour.
            let screen = s.tmux(["capture-pane", "-p", "-e", "-N", "-t", s.name]).stdout
            let judged = try #require(Self.judge(screen, columns: 100, rows: 30, reference: reference, width: 1280, height: 720),
                                      "\(mode): no picture cells")
            #expect(judged.rect.width >= 80 && judged.rect.height >= 20, "\(mode): picture \(judged.rect)")
            #expect(judged.otherCharacters == 0, "\(mode): \(judged.otherCharacters) text characters inside the picture")
            #expect(judged.psnr >= 20, "\(mode): \(judged.psnr) dB in \(judged.rect)")
            seen[mode] = judged
            s.send("q")
            #expect(s.waitFor(5) { _ in s.paneProcesses.isEmpty || !s.screen().contains("00:02") }, "\(mode): q did not quit")
        }
        if let half = seen["half"]?.psnr, let sextant = seen["sextant"]?.psnr, let quadrant = seen["quadrant"]?.psnr {
            #expect(sextant > quadrant && quadrant > half && sextant > half + 1, "half \(half) dB, quadrant \(quadrant) dB, sextant \(sextant) dB")
        }
    }
}
