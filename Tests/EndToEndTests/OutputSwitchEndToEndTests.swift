import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Changing the output while playing (`d`, the same path as the governor's fallback from sixel
/// to half-block) erases the sixel picture's cells before the first half-block cell: the player
/// runs under `script`, which keeps every byte it writes, in a tmux pane that types the keys.
@Suite(.serialized) struct OutputSwitchEndToEndTests {
    static let clip = TestEnvironment.fixture("h264-720p.mkv")

    /// The CSI sequences in `bytes` as (parameters, final byte), in order.
    static func csi(_ bytes: ArraySlice<UInt8>) -> [(numbers: [Int], final: UInt8)] {
        var found: [(numbers: [Int], final: UInt8)] = []
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            guard bytes[i] == 0x1B, bytes[i + 1] == UInt8(ascii: "[") else { i += 1; continue }
            var j = i + 2
            while j < bytes.endIndex, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
            guard j < bytes.endIndex else { break }
            let numbers = String(decoding: bytes[(i + 2)..<j], as: UTF8.self).split(separator: ";").map { Int($0) ?? -1 }
            found.append((numbers, bytes[j]))
            i = j + 1
        }
        return found
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int = 0, before end: Int? = nil, last: Bool = false) -> Int? {
        let limit = min(end ?? haystack.count, haystack.count) - needle.count
        guard limit >= from, let first = needle.first else { return nil }
        let range = last ? Array(stride(from: limit, through: from, by: -1)) : Array(from...limit)
        return range.first { haystack[$0] == first && Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") && FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func switchingFromSixelErasesThePictureBeforeTheCellsAreDrawn() throws {
        let typescript = NSTemporaryDirectory() + "aether-switch-\(getpid())-\(UUID().uuidString.prefix(6)).out"
        defer { try? FileManager.default.removeItem(atPath: typescript) }
        // Outside tmux as far as the player knows (plain sixel, no passthrough); the probe's
        // questions get tmux's answers. `caps` first says the cell size the player works with.
        func q(_ s: String) -> String { "'" + s + "'" }
        // `caps` measures the outputs `--vo=auto` weighs, sixel among them where tmux draws it
        // (3.4 and later): the player's bytes are those after the marker echo prints (the
        // typescript's header names it too, without the line end).
        let player = q(TestEnvironment.binary) + " caps; echo aether-player-starts; "
            + [TestEnvironment.binary, Self.clip, "--vo=sixel", "--vo-governor=no", "--ao=null"].map(q).joined(separator: " ")
        let s = try TmuxSession(["/usr/bin/env", "-u", "TMUX", "-u", "TMUX_PANE", "-u", "TERM_PROGRAM", "TERM=xterm-256color",
                                 "/usr/bin/script", "-q", "-f", "-e", "-c", player, typescript],
                                columns: 100, rows: 30,
                                environment: ["XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config,
                                              "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state])
        defer { s.close() }
        let header = Array("\u{1B}P0;1;0q".utf8)
        func output() -> [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: typescript)))) ?? [] }
        let marker = Array("aether-player-starts\r\n".utf8)
        func playerBytes() -> Int? { Self.find(marker, in: output()).map { $0 + marker.count } }
        _ = waitUntil(15, interval: 0.2) { playerBytes().flatMap { Self.find(header, in: output(), from: $0) } != nil }
        let firstSixel = playerBytes().flatMap { Self.find(header, in: output(), from: $0) }
        try #require(firstSixel != nil, "no sixel picture: \(s.screen())")
        // The screen up (its transport bar drawn), reading keys. Read from the bytes, not the
        // screen: the bar hides 3 s after the start while playing, and a loaded machine can take
        // that long to the first picture (no key may show it: its erase would come first).
        #expect(waitUntil(10, interval: 0.1) { Self.find(Array(" / 00:12".utf8), in: output(), from: playerBytes() ?? 0) != nil },
                "no transport bar: \(s.screen())")
        s.send("d")
        let glyphs = [Array("▀".utf8), Array("▄".utf8)]
        func firstGlyph(_ bytes: [UInt8], after start: Int) -> Int? {
            glyphs.compactMap { Self.find($0, in: bytes, from: start) }.min()
        }
        var bytes = output()
        // After the first picture (caps' list of outputs names `▀`).
        let start = firstSixel ?? 0
        _ = waitUntil(10, interval: 0.2) {
            bytes = output()
            return firstGlyph(bytes, after: start) != nil
        }
        s.send("q")
        _ = s.waitFor(10) { $0.contains("EXIT=") }
        bytes = output()
        let glyph = try #require(firstGlyph(bytes, after: start), "no half-block cell after d: \(s.screen())")
        let lastSixel = try #require(Self.find(header, in: bytes, from: start, before: glyph, last: true), "no sixel picture before the cells")
        let sixelEnd = try #require(Self.find(Array("\u{1B}\\".utf8), in: bytes, from: lastSixel, before: glyph), "the last picture unterminated")

        // The last picture's cells: its CUP, its raster size and the cell size `caps` gave.
        let capsLine = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first { $0.hasPrefix("cell size: ") }
        let cellSize = try #require(capsLine?.dropFirst(11).prefix { $0 != " " }.split(separator: "x").compactMap { Int($0) },
                                    "no cell size from caps")
        try #require(cellSize.count == 2 && cellSize.allSatisfy { $0 > 0 })
        let place = try #require(Self.csi(bytes[max(0, lastSixel - 16)..<lastSixel]).last { $0.final == UInt8(ascii: "H") })
        let raster = String(decoding: bytes[(lastSixel + header.count)..<min(sixelEnd, lastSixel + header.count + 40)], as: UTF8.self)
            .dropFirst().prefix { $0 != "#" }.split(separator: ";").compactMap { Int($0) }
        try #require(raster.count == 4 && place.numbers.count == 2, "raster \(raster), CUP \(place.numbers)")
        let origin = (column: place.numbers[1] - 1, row: place.numbers[0] - 1)
        var picture = Set<[Int]>()
        let columns = (raster[2] + cellSize[0] - 1) / cellSize[0], rows = (raster[3] + cellSize[1] - 1) / cellSize[1]
        for row in 0..<rows { for column in 0..<columns { picture.insert([origin.column + column, origin.row + row]) } }

        // Between that picture and the first cell: default attributes, then ECH over its cells.
        let between = Array(bytes[(sixelEnd + 2)..<glyph])
        let reset = try #require(Self.find(Array("\u{1B}7\u{1B}[0m".utf8), in: between), "no erase after the last sixel picture")
        var erased = Set<[Int]>()
        var cursor = (column: 0, row: 0)
        // That block alone (up to DECRC): the UI erases cells for the overlays it draws next.
        let blockEnd = Self.find(Array("\u{1B}8".utf8), in: between, from: reset) ?? between.count
        for sequence in Self.csi(between[reset..<blockEnd]) {
            if sequence.final == UInt8(ascii: "H"), sequence.numbers.count == 2 {
                cursor = (sequence.numbers[1] - 1, sequence.numbers[0] - 1)
            } else if sequence.final == UInt8(ascii: "X") {
                for k in 0..<max(1, sequence.numbers.first ?? 1) { erased.insert([cursor.column + k, cursor.row]) }
            }
        }
        let missing = picture.subtracting(erased), extra = erased.subtracting(picture)
        #expect(missing.isEmpty && extra.isEmpty,
                "the picture covers \(columns)x\(rows) cells from \(origin) (\(raster[2])x\(raster[3]) px, cells \(cellSize)): \(missing.count) not erased (e.g. \(missing.sorted { $0.lexicographicallyPrecedes($1) }.prefix(4))), \(extra.count) erased outside it (e.g. \(extra.sorted { $0.lexicographicallyPrecedes($1) }.prefix(4)))")
    }
}
