import AetherBase
import AetherInput
import TerminalGraphics

/// The inspector's own update: a key changes the inspector (its tab, tree, table, prompt and
/// frame requests) and says what the host is to do. Testable with no terminal.
extension Inspector {
    /// What the inspector needs from around it: the rows a page moves, the size frames are
    /// decoded at, and for its background readers the clock and what wakes the loop.
    struct Surroundings {
        var pageRows: Int
        var frameSize: PixelSize
        var clock: TimeSource
        var wake: @Sendable () -> Void
    }

    /// What a key did.
    enum KeyOutcome: Equatable {
        /// Not the inspector's key: the bindings have it (`q` quits, and on the live tab space,
        /// arrows and the rest drive playback).
        case notMine
        case handled
        /// Esc: the inspector closes.
        case close
        /// Handled, with a message for the message line.
        case message(String)
    }

    /// A key while the inspector is open.
    func handle(_ key: Key, _ s: Surroundings) -> KeyOutcome {
        if tab == .packets, packets.prompt != nil { return promptKey(key) }
        switch key {
        case .tab:
            enter(Tab(rawValue: (tab.rawValue + 1) % Tab.allCases.count)!, s)
            return .handled
        case .character(let c) where ("1"..."4").contains(c):
            enter(Tab(rawValue: Int(String(c))! - 1)!, s)
            return .handled
        case .escape:
            return .close
        default: break
        }
        switch tab {
        case .container: return containerKey(key, s)
        case .packets: return packetKey(key, s)
        case .frames: return frameKey(key, s)
        case .live: return .notMine
        }
    }

    /// Shows `tab`; what it needs the first time: the packets and frames tabs read the packets.
    func enter(_ tab: Tab, _ s: Surroundings) {
        self.tab = tab
        if tab == .packets || tab == .frames, loader == nil {
            loader = PacketLoader(url: source, network: network, clock: s.clock, onProgress: s.wake)
        }
    }

    private func containerKey(_ key: Key, _ s: Surroundings) -> KeyOutcome {
        switch key {
        case .up, .character("k"): browser.move(-1)
        case .down, .character("j"): browser.move(1)
        case .pageUp: browser.move(-s.pageRows)
        case .pageDown: browser.move(s.pageRows)
        case .home: browser.select(0)
        case .end: browser.select(browser.rows.count - 1)
        case .right, .enter, .character("l"): browser.expand()
        case .left, .character("h"): browser.collapse()
        case .character("["): browser.scrollHex(by: -256)
        case .character("]"): browser.scrollHex(by: 256)
        case .character("q"), .character("Q"), .control: return .notMine
        default: break   // the other keys do nothing here (no seeking behind the tree)
        }
        return .handled
    }

    private func packetKey(_ key: Key, _ s: Surroundings) -> KeyOutcome {
        switch key {
        case .up, .character("k"): packets.move(-1)
        case .down, .character("j"): packets.move(1)
        case .pageUp: packets.move(-s.pageRows)
        case .pageDown: packets.move(s.pageRows)
        case .home: packets.move(-Int.max / 2)
        case .end: packets.move(Int.max / 2)
        case .character("s"): packets.cycleStream()
        case .character("K"):
            packets.keyframesOnly.toggle()
            packets.refilter()
        case .character("g"), .character("/"): packets.prompt = ""
        case .enter: return showFrame(of: packets.selectedRow, s)
        case .character("q"), .character("Q"), .control: return .notMine
        default: break
        }
        return .handled
    }

    private func promptKey(_ key: Key) -> KeyOutcome {
        guard var text = packets.prompt else { return .notMine }
        switch key {
        case .escape: packets.prompt = nil; return .handled
        case .backspace: text = String(text.dropLast())
        case .enter:
            packets.prompt = nil
            guard let seconds = InspectTime.parse(text) else { return .message("'\(text)' is not a time (seconds, m:ss or h:mm:ss)") }
            packets.jump(to: seconds)
            return .handled
        case .character(let c) where (c.isASCII && (c.isNumber || c == ":" || c == ".")) && text.count < 16: text.append(c)
        default: return .handled
        }
        packets.prompt = text
        return .handled
    }

    private func frameKey(_ key: Key, _ s: Surroundings) -> KeyOutcome {
        switch key {
        case .character("."):
            if frame == nil { return showFrame(of: packets.rows.first { packets.stream($0.stream)?.kind == .video }, s) }
            requestFrame(.next, s)
        case .character(","): requestFrame(.previous, s)
        case .enter: return showFrame(of: packets.selectedRow, s)
        case .character("q"), .character("Q"), .control: return .notMine
        default: break
        }
        return .handled
    }

    /// The frames tab with `row`'s frame (a video packet), decoded in the background.
    private func showFrame(of row: PacketRow?, _ s: Surroundings) -> KeyOutcome {
        guard let row else { return .message(packets.finished ? "no video packet" : "reading packets…") }
        guard let stream = packets.stream(row.stream), stream.kind == .video else {
            return .message("stream #\(row.stream) is not video: the frames tab shows video frames")
        }
        guard let pts = row.pts ?? row.dts else { return .message("the packet has no timestamp") }
        enter(.frames, s)
        requestFrame(.frame(stream: stream.index, pts: pts), s)
        return .handled
    }

    private func requestFrame(_ request: FrameWorker.Request, _ s: Surroundings) {
        if worker == nil { worker = FrameWorker(url: source, network: network, maxSize: s.frameSize, clock: s.clock, onResult: s.wake) }
        frameRequested = true
        worker?.request(request)
    }

    /// The inspector's rectangle in the video area `area`: all of it, or, on the live tab, its
    /// lower part (the picture plays above it).
    func rect(in area: CellRect) -> CellRect {
        guard tab == .live else { return area }
        let height = min(area.height, 16)
        return CellRect(column: area.column, row: area.endRow - height, width: area.width, height: height)
    }
}
