@testable import AetherEngine
@testable import AetherTUI
import AetherInput
import Testing

/// The inspector's own update (#60 item 1): a key changes the inspector and returns the reads
/// it wants as effects; it starts no thread itself (the runtime does). Unit tier, on values.
struct InspectorKeysTests {
    @Test func enteringThePacketsTabAsksForThePacketsOnce() {
        let inspector = Inspector(source: "clip.mp4", network: NetworkSettings(), tab: .container, browser: InspectorViewTests.browser())
        let (outcome, effects) = inspector.handle(.character("2"), pageRows: 10)
        #expect(outcome == .handled && effects == [.readPackets] && inspector.tab == .packets)
        #expect(inspector.loader == nil, "the update starts no reader")
        #expect(inspector.handle(.tab, pageRows: 10) == (.handled, [.readPackets]), "the frames tab reads the packets too, until a reader is there")
        #expect(inspector.handle(.character("1"), pageRows: 10) == (.handled, []), "the container tab reads none")
        #expect(inspector.handle(.escape, pageRows: 10) == (.close, []))
    }

    @Test func enterOnAVideoPacketAsksForItsFrameAndTheFramesTab() {
        let inspector = InspectorScrollTests.inspector(rows: 30, prompt: nil)
        inspector.packets.selection = 3
        let (outcome, effects) = inspector.handle(.enter, pageRows: 10)
        #expect(outcome == .handled && inspector.tab == .frames)
        #expect(effects == [.readPackets, .decodeFrame(.frame(stream: 0, pts: 120))])
        #expect(inspector.worker == nil && !inspector.frameRequested, "the runtime makes the worker and the request")
        #expect(inspector.handle(.character(","), pageRows: 10) == (.handled, [.decodeFrame(.previous)]))
        #expect(inspector.handle(.character("q"), pageRows: 10) == (.notMine, []), "q is the bindings' (quit)")
    }

    @Test func aPageMovesThePagesRows() {
        let inspector = InspectorScrollTests.inspector(rows: 100, prompt: nil)
        _ = inspector.handle(.pageDown, pageRows: 25)
        #expect(inspector.packets.selection == 25)
        #expect(inspector.handle(.character("g"), pageRows: 25) == (.handled, []) && inspector.packets.prompt == "")
    }
}
