import AetherControl
import AetherEngine
import AetherInput
import AetherScreen
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The pipeline inspector in the player's screen: opened by `inspect FILE` or `` ` ``, it is an
/// overlay like the menus (the video's mask leaves it alone), fed by background readers that
/// wake the loop.
extension TUIApp {
    /// Opens the inspector on `tab` (the container tab's tree opened down to `node`, a node path).
    func openInspector(tab: Inspector.Tab, node: String? = nil) {
        if let inspector = view.inspector {
            inspector.tab = tab
        } else {
            let browser = ContainerBrowser.open(path: currentSource)
            view.inspector = Inspector(source: currentSource, tab: tab, browser: browser)
        }
        if let node, let document = view.inspector?.browser.document {
            do { view.inspector?.browser.reveal(try document.resolve(node)) } catch { osd(error.message, seconds: 4) }
        }
        enterTab(tab)
        screen.dirty = true
    }

    /// `inspect FILE`: the inspector is drawn, and its cells masked, before the item's first
    /// frame can reach the output (it would flash under the inspector).
    func openInspectorAtStart(tab: InspectorTab) {
        openInspector(tab: tab, node: options.inspectorNode)
        relayout()
        draw()
    }

    func closeInspector() {
        view.inspector?.close()
        view.inspector = nil
        screen.dirty = true
        terminal.withScreen { updateOutputScene() }
        output.repaint()
    }

    /// What a tab needs the first time it shows: the packets tab reads the packets.
    private func enterTab(_ tab: Inspector.Tab) {
        guard let inspector = view.inspector else { return }
        inspector.tab = tab
        if tab == .packets || tab == .frames, inspector.loader == nil {
            inspector.loader = PacketLoader(url: currentSource, clock: clock) { [wake] in wake.signal() }
        }
    }

    /// UI loop: data that arrived for the inspector.
    func pollInspector() {
        guard let inspector = view.inspector else { return }
        if inspector.pollPackets(), inspector.tab == .packets || inspector.tab == .frames { screen.dirty = true }
        if inspector.pollFrames() {
            inspector.frameRequested = false
            screen.dirty = true
        }
        if inspector.tab == .frames, inspector.frameRequested, inspector.worker?.isBusy == false { inspector.frameRequested = false }
    }

    /// The inspector's rectangle: the whole video area, or, on the live tab, its lower part
    /// (the picture plays above it).
    func inspectorRect(_ inspector: Inspector) -> CellRect {
        let area = layout.videoArea
        guard inspector.tab == .live else { return area }
        let height = min(area.height, 16)
        return CellRect(column: area.column, row: area.endRow - height, width: area.width, height: height)
    }

    /// Renders the inspector into `surface`; returns the cells it covers and, on the frames tab
    /// with a frame, the room it leaves for the picture.
    func renderInspector(_ inspector: Inspector, into surface: inout CellGrid) -> (covered: CellRect, picture: CellRect?) {
        InspectorView(inspector: inspector, telemetry: player.mediaInfo == nil ? nil : telemetry.latest)
            .render(in: inspectorRect(inspector), into: &surface)
    }

    /// The frames tab's picture, as a still beside the video (drawn by the output's still driver).
    func inspectorStill() -> VideoOutput.Still? {
        guard let inspector = view.inspector, inspector.tab == .frames, let frame = inspector.frame,
              let rect = screen.inspectorPicture, !rect.isEmpty, frame.still.width > 0, frame.still.height > 0 else { return nil }
        let aspect = Double(frame.still.width) / Double(frame.still.height)
        let placement = driver.placement(for: rect, displayAspect: aspect, geometry: layout.geometry, scale: 1)
        guard !placement.isEmpty else { return nil }
        return .init(placement: placement, stamp: 0x494E_0000 &+ inspector.frameStamp,
                     picture: .init(width: frame.still.width, height: frame.still.height, pixels: frame.still.pixels))
    }

    /// A key while the inspector is open; false when the key is not the inspector's (it then goes
    /// to the bindings: `q` quits, and on the live tab space, arrows and the rest drive playback).
    func handleInspectorKey(_ key: Key) -> Bool {
        guard let inspector = view.inspector else { return false }
        screen.dirty = true
        if inspector.tab == .packets, inspector.packets.prompt != nil { return handlePromptKey(key, inspector) }
        switch key {
        case .tab:
            enterTab(Inspector.Tab(rawValue: (inspector.tab.rawValue + 1) % Inspector.Tab.allCases.count)!)
            return true
        case .character(let c) where ("1"..."4").contains(c):
            enterTab(Inspector.Tab(rawValue: Int(String(c))! - 1)!)
            return true
        case .escape:
            closeInspector()
            return true
        default: break
        }
        switch inspector.tab {
        case .container: return handleContainerKey(key, inspector.browser)
        case .packets: return handlePacketKey(key, inspector)
        case .frames: return handleFrameKey(key, inspector)
        case .live: return false
        }
    }

    private var pageRows: Int { max(1, layout.videoArea.height - 4) }

    private func handleContainerKey(_ key: Key, _ browser: ContainerBrowser) -> Bool {
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
        case .character("q"), .character("Q"), .control: return false
        default: return true   // the other keys do nothing here (no seeking behind the tree)
        }
        return true
    }

    private func handlePacketKey(_ key: Key, _ inspector: Inspector) -> Bool {
        switch key {
        case .up, .character("k"): inspector.packets.move(-1)
        case .down, .character("j"): inspector.packets.move(1)
        case .pageUp: inspector.packets.move(-pageRows)
        case .pageDown: inspector.packets.move(pageRows)
        case .home: inspector.packets.move(-Int.max / 2)
        case .end: inspector.packets.move(Int.max / 2)
        case .character("s"): inspector.packets.cycleStream()
        case .character("K"):
            inspector.packets.keyframesOnly.toggle()
            inspector.packets.refilter()
        case .character("g"), .character("/"): inspector.packets.prompt = ""
        case .enter: showFrame(of: inspector.packets.selectedRow, inspector)
        case .character("q"), .character("Q"), .control: return false
        default: return true
        }
        return true
    }

    private func handlePromptKey(_ key: Key, _ inspector: Inspector) -> Bool {
        guard var text = inspector.packets.prompt else { return false }
        switch key {
        case .escape: inspector.packets.prompt = nil; return true
        case .backspace: text = String(text.dropLast())
        case .enter:
            inspector.packets.prompt = nil
            if let seconds = InspectTime.parse(text) {
                inspector.packets.jump(to: seconds)
            } else {
                osd("'\(text)' is not a time (seconds, m:ss or h:mm:ss)")
            }
            return true
        case .character(let c) where (c.isASCII && (c.isNumber || c == ":" || c == ".")) && text.count < 16: text.append(c)
        default: return true
        }
        inspector.packets.prompt = text
        return true
    }

    private func handleFrameKey(_ key: Key, _ inspector: Inspector) -> Bool {
        switch key {
        case .character("."):
            if inspector.frame == nil {
                showFrame(of: inspector.packets.rows.first { inspector.packets.stream($0.stream)?.kind == .video }, inspector)
            } else {
                requestFrame(.next, inspector)
            }
        case .character(","): requestFrame(.previous, inspector)
        case .enter: showFrame(of: inspector.packets.selectedRow, inspector)
        case .character("q"), .character("Q"), .control: return false
        default: return true
        }
        return true
    }

    /// The frames tab with `row`'s frame (a video packet), decoded in the background.
    private func showFrame(of row: PacketRow?, _ inspector: Inspector) {
        guard let row else {
            osd(inspector.packets.finished ? "no video packet" : "reading packets…")
            return
        }
        guard let stream = inspector.packets.stream(row.stream), stream.kind == .video else {
            osd("stream #\(row.stream) is not video: the frames tab shows video frames")
            return
        }
        guard let pts = row.pts ?? row.dts else { osd("the packet has no timestamp"); return }
        enterTab(.frames)
        requestFrame(.frame(stream: stream.index, pts: pts), inspector)
    }

    private func requestFrame(_ request: FrameWorker.Request, _ inspector: Inspector) {
        if inspector.worker == nil {
            let cell = layout.geometry.cellSize
            let area = layout.videoArea
            let size = PixelSize(width: min(3840, max(64, area.width * cell.width)), height: min(2160, max(64, area.height * cell.height)))
            inspector.worker = FrameWorker(url: currentSource, maxSize: size) { [wake] in wake.signal() }
        }
        inspector.frameRequested = true
        inspector.worker?.request(request)
    }
}
