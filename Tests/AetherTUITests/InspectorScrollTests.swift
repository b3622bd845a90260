@testable import AetherEngine
@testable import AetherScreen
@testable import AetherTUI
import Foundation
import Testing
import TerminalGraphics

/// The inspector's lists are scrolled by the update step (``InspectorView/keepSelectionsInView(_:in:)``),
/// not while drawing: rendering reads the scroll and leaves it as it was.
struct InspectorScrollTests {
    static func inspector(rows count: Int, prompt: String?) -> Inspector {
        let inspector = Inspector(source: "clip.mp4", network: NetworkSettings(), tab: .packets, browser: InspectorViewTests.browser())
        var table = PacketTable()
        table.streams = [try! JSONDecoder().decode(InspectedStream.self, from: Data(#"{"index":0,"kind":"video","codec":"h264","timeBase":{"num":1,"den":1000}}"#.utf8))]
        var rows: [PacketRow] = []
        for i in 0..<count {
            let time = Int64(i * 40)
            rows.append(PacketRow(stream: 0, size: 100, pts: time, dts: time, duration: 40, position: Int64(i * 100),
                                  isKey: i % 20 == 0, isDiscard: false, isCorrupt: false, gop: 1))
        }
        table.append(rows[...])
        table.prompt = prompt
        inspector.packets = table
        return inspector
    }

    @Test(arguments: [nil, "1:0"])
    func thePacketTableScrollsInTheUpdateStepToTheRowsTheViewDraws(prompt: String?) {
        let inspector = Self.inspector(rows: 100, prompt: prompt)
        inspector.packets.selection = 90
        let rect = CellRect(column: 0, row: 0, width: 120, height: 20)
        var before = CellGrid(columns: 120, rows: 20)
        InspectorView(inspector: inspector).render(in: rect, into: &before)
        #expect(inspector.packets.scroll == 0, "drawing leaves the scroll alone")
        InspectorView.keepSelectionsInView(inspector, in: rect)
        let rows = InspectorView.packetRows(in: InspectorView.body(of: rect), table: inspector.packets)
        #expect(inspector.packets.scroll == 90 - rows + 1)
        var grid = CellGrid(columns: 120, rows: 20)
        InspectorView(inspector: inspector).render(in: rect, into: &grid)
        // The selected packet is the table's last drawn row, right above the hints.
        #expect(grid.roles[rect.endRow - 2][1] == .menuSelected && grid.lines[rect.endRow - 2].contains("3.600"), "\(grid.text)")
        #expect(grid.roles[rect.endRow - 3][1] != .menuSelected)
    }
}
