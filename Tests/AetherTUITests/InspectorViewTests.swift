@testable import AetherScreen
@testable import AetherTUI
import AetherEngine
import AetherTestSupport
import TerminalGraphics
import Foundation
import Testing

/// The inspector's views rendered into a buffer: the tree's lines and hex view from a structure
/// in memory, hostile names sanitised, the packets table's filters and jump, the prompt's time.
struct InspectorViewTests {
    /// A tiny MP4-like file: ftyp, a moov holding a box whose type is an escape byte, a free box.
    static func file() -> [UInt8] {
        func box(_ type: [UInt8], _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + type + payload
        }
        let ftyp = box(Array("ftyp".utf8), Array("isom".utf8) + [0, 0, 2, 0] + Array("isomavc1".utf8))
        let hostile = box([0x1B, 0x5B, 0x32, 0x4A], [1, 2, 3])   // ESC [ 2 J: "clear screen"
        let moov = box(Array("moov".utf8), hostile)
        return ftyp + moov + box(Array("free".utf8), [])
    }

    static func browser() -> ContainerBrowser {
        let source = MemoryByteSource(file())
        let document = StructureDocument(source: source, parser: ISOBMFFParser(source: source), budget: StructureBudget())
        return ContainerBrowser(document: document, failure: nil)
    }

    @Test func treeFieldsAndHexAreDrawnAndSanitised() {
        let browser = Self.browser()
        #expect(browser.rows.map { $0.node?.name } == ["ftyp", "moov", "free"])
        browser.select(1)
        browser.expand()
        #expect(browser.rows.count == 4, "moov's child listed under it")
        browser.move(1)
        let inspector = Inspector(source: "/tmp/a\u{1B}]0;x\u{07}.mp4", network: NetworkSettings(), tab: .container, browser: browser)
        var grid = CellGrid(columns: 120, rows: 30)
        let drawn = InspectorView(inspector: inspector).render(in: CellRect(column: 0, row: 0, width: 120, height: 30), into: &grid)
        #expect(drawn.covered == CellRect(column: 0, row: 0, width: 120, height: 30))
        let text = grid.text
        #expect(text.contains("1 Container") && text.contains("▾ moov") && text.contains("ftyp  @0"))
        // The escape byte of the box type never reaches the grid as a control character.
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        // The hex view starts at the chosen box's offset with its size bytes and type.
        let ftypSize = 8 + 16
        #expect(text.contains(String(format: "%08x  00 00 00 0b 1b 5b 32 4a", ftypSize + 8)), "\(text)")
        // Closing moov and going to the parent.
        browser.collapse()
        #expect(browser.selected?.node?.name == "moov")
        browser.collapse()
        #expect(browser.rows.count == 3)
    }

    @Test func packetFiltersAndJump() {
        var table = PacketTable()
        let tb = StreamTimeBase(num: 1, den: 1000)
        table.streams = [try! JSONDecoder().decode(InspectedStream.self, from: Data(#"{"index":0,"kind":"video","codec":"h264","timeBase":{"num":1,"den":1000}}"#.utf8)),
                         try! JSONDecoder().decode(InspectedStream.self, from: Data(#"{"index":1,"kind":"audio","codec":"aac","timeBase":{"num":1,"den":1000}}"#.utf8))]
        _ = tb
        var rows: [PacketRow] = []
        for i in 0..<100 {
            let stream: Int32 = i % 2 == 0 ? 0 : 1
            rows.append(PacketRow(stream: stream, size: 100, pts: Int64(i * 40), dts: Int64(i * 40), duration: 40, position: Int64(i * 100),
                                  isKey: stream == 1 || i % 20 == 0, isDiscard: false, isCorrupt: false, gop: 1))
        }
        table.append(rows[...])
        #expect(table.visible.count == 100)
        table.cycleStream()
        #expect(table.streamFilter == 0 && table.visible.count == 50)
        table.keyframesOnly = true
        table.refilter()
        #expect(table.visible.count == 5)
        table.keyframesOnly = false
        table.refilter()
        table.jump(to: 2)
        #expect(table.selectedRow?.dts == 2000)
        table.cycleStream(); table.cycleStream()
        #expect(table.streamFilter == nil && table.visible.count == 100)
    }

    @Test func promptTimes() {
        #expect(InspectTime.parse("5") == 5)
        #expect(InspectTime.parse("1:05") == 65)
        #expect(InspectTime.parse("1:00:01.5") == 3601.5)
        #expect(InspectTime.parse("1e300") == OutsideValue.maxSeconds)   // clamped, as every time from outside
        for bad in ["", "a", "1:2:3:4", "1.5:00", "-1", "1/0", String(repeating: "9", count: 40)] {
            #expect(InspectTime.parse(bad) == nil, "\(bad)")
        }
    }

    /// The hex view fills its pane (issue 32, item 13).
    @Test func theHexViewUsesItsWidth() {
        #expect(InspectorView.hexShape(width: 69) == (perLine: 16, ascii: false))
        #expect(InspectorView.hexShape(width: 78) == (perLine: 16, ascii: true))
        #expect(InspectorView.hexShape(width: 142) == (perLine: 32, ascii: true))
        #expect(InspectorView.hexShape(width: 40) == (perLine: 8, ascii: true))
        let line = InspectorView.hexLines(Array(0..<16), offset: 0, perLine: 16, ascii: false)[0]
        #expect(line.count <= 69 && !line.contains("|"), "\(line)")
    }
}
