import AetherMedia
import AetherScreen
import AetherThemes
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// Draws the inspector into a rectangle: the tab bar, the tab's panes, a line of key hints.
/// Every text from the file (names, fields, tags, errors) is sanitised by the surface's `put`
/// and was sanitised again where the engine made it. Returns the cells it covers and, on the
/// frames tab, the rectangle left for the picture.
struct InspectorView {
    let inspector: Inspector
    /// The live tab's current figures (nil outside the player).
    var telemetry: TelemetrySnapshot?

    static let hints: [Inspector.Tab: String] = [
        .container: "↑↓ move  → open  ← close  [ ] hex  Tab next tab  Esc close  q quit",
        .packets: "↑↓ PgUp PgDn  s stream  K keyframes  g jump  Enter frame  Tab  Esc  q",
        .frames: ". next frame  , previous  Enter from packet  Tab  Esc  q",
        .live: "space play/pause  ← → seek  Tab  Esc close  q quit",
    ]

    /// Whether a rectangle has room for the inspector at all.
    static func fits(_ rect: CellRect) -> Bool { rect.width >= 20 && rect.height >= 5 }

    /// A tab's body: between the tab bar and the hints.
    static func body(of rect: CellRect) -> CellRect {
        CellRect(column: rect.column, row: rect.row + 1, width: rect.width, height: rect.height - 2)
    }

    /// The packets table's rows in `body`, under the streams' sparklines (at most four, while
    /// three rows stay below them), the status line, the jump prompt and the header.
    static func packetRows(in body: CellRect, table: PacketTable) -> Int {
        let sparklines = min(table.streams.prefix(4).count, max(0, body.endRow - 3 - body.row))
        return body.endRow - (body.row + sparklines + 1 + (table.prompt == nil ? 0 : 1) + 1)
    }

    /// Scrolls the tree and the packets table so that their selections show in `rect`: the
    /// update step runs it before a draw (drawing only reads the scroll).
    static func keepSelectionsInView(_ inspector: Inspector, in rect: CellRect) {
        guard fits(rect) else { return }
        let body = body(of: rect)
        switch inspector.tab {
        case .container: inspector.browser.scrollIntoView(height: body.height)
        case .packets: inspector.packets.scrollIntoView(height: packetRows(in: body, table: inspector.packets))
        case .frames, .live: break
        }
    }

    @discardableResult
    func render(in rect: CellRect, into surface: inout some TextSurface) -> (covered: CellRect, picture: CellRect?) {
        guard Self.fits(rect) else { return (CellRect(column: 0, row: 0, width: 0, height: 0), nil) }
        for row in rect.row..<rect.endRow where inspector.tab != .frames || row == rect.row || row >= rect.endRow - 1 {
            surface.fill(row: row, column: rect.column, width: rect.width, role: .menu)
        }
        drawTabs(in: rect, into: &surface)
        let body = Self.body(of: rect)
        var picture: CellRect?
        switch inspector.tab {
        case .container: drawContainer(in: body, into: &surface)
        case .packets: drawPackets(in: body, into: &surface)
        case .frames: picture = drawFrames(in: body, into: &surface)
        case .live: drawLive(in: body, into: &surface)
        }
        surface.put(" " + (Self.hints[inspector.tab] ?? ""), row: rect.endRow - 1, column: rect.column, role: .status, width: rect.width)
        return (rect, picture)
    }

    private func drawTabs(in rect: CellRect, into surface: inout some TextSurface) {
        var x = rect.column
        for tab in Inspector.Tab.allCases {
            let label = " \(tab.rawValue + 1) \(tab.title) "
            surface.put(label, row: rect.row, column: x, role: tab == inspector.tab ? .menuSelected : .menuBorder,
                        width: max(0, rect.endColumn - x))
            x += DisplayWidth.of(label) + 1
        }
        let name = URL(fileURLWithPath: inspector.source).lastPathComponent
        let format = inspector.browser.document.map { " [\($0.parser.format.rawValue)]" } ?? ""
        let right = TextSanitizer.clean(name) + format + " "
        let w = DisplayWidth.of(right)
        if x + w < rect.endColumn { surface.put(right, row: rect.row, column: rect.endColumn - w, role: .title) }
    }

    // MARK: container

    private func drawContainer(in body: CellRect, into surface: inout some TextSurface) {
        let browser = inspector.browser
        if browser.reading {
            surface.put(" reading " + TextSanitizer.clean(inspector.source) + " …", row: body.row + 1, column: body.column, role: .status, width: body.width)
            return
        }
        if let failure = browser.failure {
            surface.put(" " + failure, row: body.row + 1, column: body.column, role: .warning, width: body.width)
            return
        }
        let treeWidth = body.width >= 100 ? body.width * 11 / 20 : body.width >= 60 ? body.width / 2 : body.width
        for i in 0..<body.height {
            let index = browser.scroll + i
            guard let row = browser.rows[safe: index] else { break }
            let selected = index == browser.selection
            let role: ThemeRole = selected ? .menuSelected : (row.node?.damage != nil ? .warning : .menu)
            var text = Self.treeLine(row)
            // The chosen row is highlighted across the pane.
            if selected { text += String(repeating: " ", count: max(0, treeWidth - DisplayWidth.of(text))) }
            surface.put(text, row: body.row + i, column: body.column, role: role, width: treeWidth)
        }
        guard treeWidth < body.width else { return }
        let pane = CellRect(column: body.column + treeWidth + 1, row: body.row, width: body.width - treeWidth - 1, height: body.height)
        for r in pane.row..<pane.endRow { surface.put("│", row: r, column: pane.column - 1, role: .menuBorder) }
        var lines: [(String, ThemeRole)] = []
        if let node = browser.selected?.node {
            lines.append((node.name + (node.summary.map { "  " + $0 } ?? ""), .title))
            lines.append(("offset " + Self.number(node.offset) + "   header " + Self.number(node.headerSize) + " B   size "
                          + (node.size.map { Self.number($0) + " B" } ?? "unknown"), .stats))
            if let damage = node.damage { lines.append(("⚠ " + damage, .warning)) }
            if node.omittedChildren > 0 { lines.append(("\(node.omittedChildren) children not listed (budget)", .warning)) }
            for field in node.fields { lines.append((field.name + ": " + field.value, .stats)) }
        } else if let row = browser.selected, row.omitted > 0 {
            lines.append(("\(row.omitted) more not listed: the budget bounds what one level shows", .warning))
        }
        let hexRows = min(16, max(0, pane.height - lines.count - 2))
        let fieldRows = pane.height - (hexRows > 0 ? hexRows + 1 : 0)
        for (i, line) in lines.prefix(fieldRows).enumerated() {
            surface.put(" " + line.0, row: pane.row + i, column: pane.column, role: line.1, width: pane.width)
        }
        guard hexRows > 0, browser.selected?.node?.coversBytes == true else { return }
        let (perLine, ascii) = Self.hexShape(width: pane.width - 1)
        let (start, bytes) = browser.hexBytes(count: hexRows * perLine)
        let top = pane.endRow - hexRows
        surface.put(" bytes from " + Self.number(start), row: top - 1, column: pane.column, role: .menuBorder, width: pane.width)
        for (i, line) in Self.hexLines(bytes, offset: start, perLine: perLine, ascii: ascii).prefix(hexRows).enumerated() {
            surface.put(" " + line, row: top + i, column: pane.column, role: .telemetry, width: pane.width)
        }
    }

    static func treeLine(_ row: ContainerBrowser.Row) -> String {
        let indent = String(repeating: "  ", count: min(row.depth, 40))
        guard let node = row.node else { return indent + "  … \(row.omitted) more" }
        let marker = node.isContainer ? (row.isOpen ? "▾ " : "▸ ") : "  "
        var text = indent + marker + node.name
        if node.coversBytes { text += "  @" + number(node.offset) + "  " + (node.size.map { number($0) } ?? "?") }
        if let summary = node.summary { text += "  " + summary }
        if node.damage != nil { text += "  ⚠" }
        return text
    }

    /// Bytes per hex line in `width` columns: 32 or 16 with their text column where they fit,
    /// 16 without it where only the bytes fit, else 8 (a line is 14 + 4 × n columns with the
    /// text, 10 + 3 × n − 1 without).
    static func hexShape(width: Int) -> (perLine: Int, ascii: Bool) {
        for n in [32, 16] where 14 + 4 * n <= width { return (n, true) }
        if 10 + 3 * 16 - 1 <= width { return (16, false) }
        return (8, true)
    }

    /// `00000000  1a 45 df a3 …  |.E..|`: offset, bytes, printable ASCII (everything else `.`;
    /// left out without `ascii`).
    static func hexLines(_ bytes: [UInt8], offset: Int64, perLine: Int, ascii: Bool = true) -> [String] {
        stride(from: 0, to: bytes.count, by: perLine).map { i in
            let chunk = bytes[i..<min(bytes.count, i + perLine)]
            let hex = chunk.map { String(cFormat: "%02x", $0) }.joined(separator: " ")
            let line = String(cFormat: "%08llx  ", offset + Int64(i)) + hex.paddedOrCut(to: perLine * 3 - 1)
            guard ascii else { return line }
            return line + "  |" + String(chunk.map { (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "." }) + "|"
        }
    }

    /// `1,234,567`.
    static func number(_ n: Int64) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    // MARK: packets

    private func drawPackets(in body: CellRect, into surface: inout some TextSurface) {
        let table = inspector.packets
        var y = body.row
        // One bit-rate sparkline per stream (at most four), across the file's span.
        let sparkWidth = max(0, body.width - 26)
        for stream in table.streams.prefix(4) where y < body.endRow - 3 {
            let rates = table.bitrate(stream: stream.index, buckets: sparkWidth)
            let peak = rates.max() ?? 0
            let label = " #\(stream.index) " + String(stream.codec.prefix(6)).leftAligned(6) + String(cFormat: " %6.0f kb/s ", peak / 1000)
            surface.put(label, row: y, column: body.column, role: .telemetry, width: 26)
            surface.put(TelemetryHistory.sparkline(rates, width: sparkWidth), row: y, column: body.column + 26, role: .sparkline, width: sparkWidth)
            y += 1
        }
        let filter = "stream " + (table.streamFilter.map { "#\($0)" } ?? "all") + (table.keyframesOnly ? ", keyframes only" : "")
        let status = "\(table.visible.count) of \(table.rows.count) packets" + (table.finished ? "" : " (reading…)")
            + (table.note.map { "  " + $0 } ?? "") + "  filter: " + filter
        surface.put(" " + status, row: y, column: body.column, role: .title, width: body.width)
        y += 1
        if let prompt = table.prompt {
            surface.put(" jump to (seconds or m:ss): " + prompt + "▏", row: y, column: body.column, role: .menuSelected, width: body.width)
            y += 1
        }
        let pad = Self.rightAligned
        let header = "   " + pad("index", 9) + " " + pad("st", 2) + " " + pad("dts (s)", 11) + " " + pad("pts (s)", 11)
            + " " + pad("dur (s)", 9) + " " + pad("size", 8) + " " + pad("pos", 10) + " flags " + pad("gop", 4)
        surface.put(header, row: y, column: body.column, role: .menuBorder, width: body.width)
        y += 1
        let height = body.endRow - y
        for i in 0..<max(0, height) {
            let k = table.scroll + i
            guard let rowIndex = table.visible[safe: k] else { break }
            let p = table.rows[rowIndex]
            let tb = table.stream(p.stream)?.timeBase
            func t(_ v: Int64?) -> String { tb?.seconds(v).map { String(cFormat: "%11.6f", $0) } ?? "          -" }
            let line = (p.startsGOP ? "┌▶" : (p.gop > 0 ? "│ " : "  ")) + String(cFormat: " %9d %2d ", rowIndex, p.stream) + t(p.dts) + " " + t(p.pts)
                + " " + (tb?.seconds(p.duration).map { String(cFormat: "%9.6f", $0) } ?? "        -")
                + String(cFormat: " %8d ", p.size) + Self.rightAligned(p.position.map { String($0) } ?? "-", 10)
                + " " + p.flags + (p.gop > 0 ? String(cFormat: "   %4d", p.gop) : "      -")
            let role: ThemeRole = k == table.selection ? .menuSelected : (p.isCorrupt ? .warning : (p.startsGOP ? .title : .menu))
            surface.put(line, row: y + i, column: body.column, role: role, width: body.width)
        }
    }

    /// `text` padded on the left to `width` columns (Foundation's `%10@` does not pad on Linux).
    static func rightAligned(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    // MARK: frames

    private func drawFrames(in body: CellRect, into surface: inout some TextSurface) -> CellRect? {
        let infoWidth = min(44, max(24, body.width / 3))
        let picture = CellRect(column: body.column, row: body.row, width: max(0, body.width - infoWidth - 1), height: body.height)
        let info = CellRect(column: picture.endColumn + 1, row: body.row, width: infoWidth, height: body.height)
        for r in info.row..<info.endRow {
            surface.fill(row: r, column: info.column - 1, width: info.width + 1, role: .menu)
            surface.put("│", row: r, column: info.column - 1, role: .menuBorder)
        }
        var lines: [(String, ThemeRole)] = []
        if inspector.frameRequested, inspector.worker?.isBusy == true { lines.append(("decoding…", .status)) }
        if let error = inspector.frameError { lines.append(("⚠ " + error, .warning)) }
        if let f = inspector.frame {
            let r = f.record
            lines.append(("stream #\(r.stream)  picture \(r.picture.pictureType ?? "?")\(r.isKey ? "  key" : "")", .title))
            lines.append(("pts " + (r.times.pts.map(String.init) ?? "-") + (r.times.ptsTime.map { String(cFormat: "  %.6f s", $0) } ?? ""), .stats))
            lines.append(("packet " + (r.origin.position.map { "@\($0)" } ?? "@?") + "  " + (r.origin.size.map { "\($0) B" } ?? ""), .stats))
            lines.append((String(cFormat: "decoded in %.1f ms (%d packets)", f.decodeMilliseconds, f.packetsDecoded), .stats))
            if let format = r.format { lines.append(("format \(format)" + (r.picture.isInterlaced ? (r.picture.topFieldFirst ? "  interlaced tff" : "  interlaced bff") : ""), .stats)) }
            for p in f.properties { lines.append((p.name + ": " + p.value, .stats)) }
            lines.append(("side data: " + (f.sideData.isEmpty ? "none" : ""), .stats))
            for s in f.sideData { lines.append(("  " + s, .stats)) }
            if r.isDamaged { lines.append(("⚠ damaged: " + r.damage.decodeErrors.joined(separator: ", "), .warning)) }
            for e in f.errors.suffix(4) { lines.append(("⚠ " + e, .warning)) }
        } else if !inspector.frameRequested {
            lines.append(("Choose a video packet in the packets tab and press Enter; or . for the first frame.", .status))
        }
        for (i, line) in lines.prefix(info.height).enumerated() {
            surface.put(" " + line.0, row: info.row + i, column: info.column, role: line.1, width: info.width)
        }
        return inspector.frame == nil ? nil : picture
    }

    // MARK: live

    private func drawLive(in body: CellRect, into surface: inout some TextSurface) {
        guard let t = telemetry else {
            surface.put(" No playback: the live tab shows the player's queues while it plays.", row: body.row, column: body.column, role: .status, width: body.width)
            return
        }
        let h = inspector.live
        var lines: [(String, String, ThemeRole)] = []
        let barWidth = 20
        for q in t.buffer.queues {
            let filled = min(barWidth, max(0, Int(saturating: (q.level * Double(barWidth)).rounded())))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
            let bytes = q.byteCapacity.map { String(cFormat: " %.1f/%.0f MB", Double(q.bytes) / 1e6, Double($0) / 1e6) } ?? ""
            lines.append((q.name.leftAligned(13) + " " + bar + " \(q.items)/\(q.capacity)" + bytes, TelemetryHistory.sparkline(h["queue " + q.name], width: 200), .telemetry))
        }
        lines.append((String(cFormat: "cache ahead   %6.2f s", t.buffer.seconds) + (t.network.cachedUntil.map { String(cFormat: "  demuxed to %.1f s", $0) } ?? ""), TelemetryHistory.sparkline(h["buffered"], width: 200), .telemetry))
        lines.append(("clock         \(t.sync.clockSource)" + String(cFormat: " %.3f s  A/V %+.1f ms (p95 %.1f)", t.sync.clockTime, t.sync.gapLastMs, t.sync.gapP95Ms), TelemetryHistory.sparkline(h["gap"].map(abs), width: 200), .telemetry))
        lines.append(("frames        \(t.frames.decoded) decoded  \(t.frames.presented) shown  \(t.frames.dropped) dropped  \(t.frames.superseded) superseded", TelemetryHistory.sparkline(h["dropped"], width: 200), .telemetry))
        for (name, value) in [("read", t.stages.readMsPerPacket), ("decode", t.stages.decodeMsPerFrame), ("filter", t.stages.filterMsPerFrame),
                              ("scale", t.stages.scaleMsPerFrame), ("present", t.stages.presentMsPerFrame), ("render", t.stages.renderMsPerFrame),
                              ("write", t.stages.writeMsPerFrame)] {
            lines.append((name.leftAligned(13) + String(cFormat: " %7.2f ms", value), TelemetryHistory.sparkline(h[name], width: 200), .telemetry))
        }
        let labelWidth = min(body.width, max(40, body.width * 3 / 5))
        let sparkWidth = body.width - labelWidth - 1
        for (i, line) in lines.prefix(body.height).enumerated() {
            surface.put(" " + line.0, row: body.row + i, column: body.column, role: line.2, width: labelWidth)
            if sparkWidth > 4 {
                surface.put(String(line.1.suffix(sparkWidth)), row: body.row + i, column: body.column + labelWidth + 1, role: .sparkline, width: sparkWidth)
            }
        }
    }
}
