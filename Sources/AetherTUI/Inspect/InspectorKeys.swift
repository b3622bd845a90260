import AetherBase
import AetherInput
import TerminalGraphics

/// The inspector's own update: a key changes the inspector (its tab, tree, table and prompt)
/// and says what the host is to do: its outcome, and the reads it wants (``Effect``), which the
/// runtime starts on their threads. It starts none itself. Tested with no terminal
/// (`InspectorKeysTests`).
extension Inspector {
    /// A read the inspector wants, carried out by the runtime on a thread of its own.
    enum Effect: Equatable {
        /// The packets of the file (the packets and frames tabs), read once.
        case readPackets
        /// A frame decoded (a packet's, the next or the one before the shown one).
        case decodeFrame(FrameWorker.Request)
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

    /// A key while the inspector is open (`pageRows`: the rows a page moves): what it did, and
    /// the reads it wants.
    func handle(_ key: Key, pageRows: Int) -> (KeyOutcome, [Effect]) {
        if tab == .packets, packets.prompt != nil { return (promptKey(key), []) }
        switch key {
        case .tab: return (.handled, enter(Tab(rawValue: (tab.rawValue + 1) % Tab.allCases.count)!))
        case .character(let c) where ("1"..."4").contains(c): return (.handled, enter(Tab(rawValue: Int(String(c))! - 1)!))
        case .escape: return (.close, [])
        default: break
        }
        switch tab {
        case .container: return (containerKey(key, pageRows: pageRows), [])
        case .packets: return packetKey(key, pageRows: pageRows)
        case .frames: return frameKey(key)
        case .live: return (.notMine, [])
        }
    }

    /// Shows `tab`; what it needs the first time: the packets and frames tabs read the packets.
    func enter(_ tab: Tab) -> [Effect] {
        self.tab = tab
        return (tab == .packets || tab == .frames) && loader == nil ? [.readPackets] : []
    }

    private func containerKey(_ key: Key, pageRows: Int) -> KeyOutcome {
        switch key {
        case .up, .character("k"): browser.move(-1)
        case .down, .character("j"): browser.move(1)
        case .pageUp: browser.move(-pageRows)
        case .pageDown: browser.move(pageRows)
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

    private func packetKey(_ key: Key, pageRows: Int) -> (KeyOutcome, [Effect]) {
        switch key {
        case .up, .character("k"): packets.move(-1)
        case .down, .character("j"): packets.move(1)
        case .pageUp: packets.move(-pageRows)
        case .pageDown: packets.move(pageRows)
        case .home: packets.move(-Int.max / 2)
        case .end: packets.move(Int.max / 2)
        case .character("s"): packets.cycleStream()
        case .character("K"):
            packets.keyframesOnly.toggle()
            packets.refilter()
        case .character("g"), .character("/"): packets.prompt = ""
        case .enter: return showFrame(of: packets.selectedRow)
        case .character("q"), .character("Q"), .control: return (.notMine, [])
        default: break
        }
        return (.handled, [])
    }

    private func promptKey(_ key: Key) -> KeyOutcome {
        guard var text = packets.prompt else { return .notMine }
        switch key {
        case .escape:
            packets.prompt = nil
            return .handled
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

    private func frameKey(_ key: Key) -> (KeyOutcome, [Effect]) {
        switch key {
        case .character("."):
            if frame == nil { return showFrame(of: packets.rows.first { packets.stream($0.stream)?.kind == .video }) }
            return (.handled, [.decodeFrame(.next)])
        case .character(","): return (.handled, [.decodeFrame(.previous)])
        case .enter: return showFrame(of: packets.selectedRow)
        case .character("q"), .character("Q"), .control: return (.notMine, [])
        default: return (.handled, [])
        }
    }

    /// The frames tab with `row`'s frame (a video packet), decoded in the background.
    private func showFrame(of row: PacketRow?) -> (KeyOutcome, [Effect]) {
        guard let row else { return (.message(packets.finished ? "no video packet" : "reading packets…"), []) }
        guard let stream = packets.stream(row.stream), stream.kind == .video else {
            return (.message("stream #\(row.stream) is not video: the frames tab shows video frames"), [])
        }
        guard let pts = row.pts ?? row.dts else { return (.message("the packet has no timestamp"), []) }
        return (.handled, enter(.frames) + [.decodeFrame(.frame(stream: stream.index, pts: pts))])
    }

    /// The inspector's rectangle in the video area `area`: all of it, or, on the live tab, its
    /// lower part (the picture plays above it).
    func rect(in area: CellRect) -> CellRect {
        guard tab == .live else { return area }
        let height = min(area.height, 16)
        return CellRect(column: area.column, row: area.endRow - height, width: area.width, height: height)
    }
}
