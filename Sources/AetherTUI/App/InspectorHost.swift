import AetherControl
import AetherBase
import AetherInput
import AetherScreen
import FoundationEssentials
import TerminalGraphics

/// The pipeline inspector in the player's screen: opened by `inspect FILE` or `` ` ``, it is an
/// overlay like the menus (the video's mask leaves it alone), fed by background readers that
/// wake the loop. Its keys are its own update (``Inspector/handle(_:pageRows:)``).
extension HostRuntime {
    /// Opens the inspector on `tab` (the container tab's tree opened down to `node`, a node
    /// path, once its document is read: on a thread of its own, ``DocumentReader``).
    func openInspector(tab: Inspector.Tab, node: String? = nil) {
        // (The inspector made here is the one the model holds once `.inspector` is handled,
        // which may be after this returns: an event sent from another's effects waits its turn.)
        let inspector: Inspector
        if let open = view.inspector {
            inspector = open
        } else {
            let network = options.player.network
            inspector = Inspector(source: currentSource, network: network, tab: tab, browser: .reading())
            inspector.reader = DocumentReader(path: currentSource, network: network, clock: clock, wake: { [wake] in wake.signal() })
            send(.inspector(inspector))
        }
        if let node {
            inspector.pendingNode = node
            revealPendingNode(inspector)
        }
        perform(inspector.enter(tab), on: inspector)
        display.screen.dirty = true
    }

    /// `--node`: the tree opened down to it once the document is there (a path that names no
    /// node is said on the message line).
    private func revealPendingNode(_ inspector: Inspector) {
        guard let node = inspector.pendingNode, !inspector.browser.reading else { return }
        inspector.pendingNode = nil
        guard let document = inspector.browser.document else { return }
        do { inspector.browser.reveal(try document.resolve(node)) } catch { osd(error.message, seconds: 4) }
    }

    /// `inspect FILE`: the inspector is drawn, and its cells masked, before the item's first
    /// frame can reach the output (it would flash under the inspector).
    func openInspectorAtStart(tab: InspectorTab) {
        openInspector(tab: tab, node: options.inspector?.node)
        relayout()
        draw()
    }

    /// The inspector's readers end; the model learns it is closed (and the output's scene is
    /// made again without its picture: ``HostEffect/outputScene``).
    func closeInspector() {
        view.inspector?.close()
        send(.inspector(nil))
    }

    /// Starts the reads the inspector's update asked for, each on its thread (its results
    /// wake the loop): the packets, once; a frame, on the frame worker (made the first time,
    /// decoding at most at the video area's pixels).
    func perform(_ effects: [Inspector.Effect], on inspector: Inspector) {
        let wake: @Sendable () -> Void = { [wake] in wake.signal() }
        for effect in effects {
            switch effect {
            case .readPackets:
                if inspector.loader == nil {
                    inspector.loader = PacketLoader(url: inspector.source, network: inspector.network, clock: clock, onProgress: wake)
                }
            case .decodeFrame(let request):
                if inspector.worker == nil {
                    let (area, cell) = (display.layout.videoArea, display.layout.geometry.cellSize)
                    let size = PixelSize(width: min(3840, max(64, area.width * cell.width)), height: min(2160, max(64, area.height * cell.height)))
                    inspector.worker = FrameWorker(url: inspector.source, network: inspector.network, maxSize: size, clock: clock, onResult: wake)
                }
                inspector.frameRequested = true
                inspector.worker?.request(request)
            }
        }
    }

    /// A key while the inspector is open (a page is the video area less its frame); false when
    /// the key is not the inspector's.
    func handleInspectorKey(_ key: Key) -> Bool {
        guard let inspector = view.inspector else { return false }
        display.screen.dirty = true
        let (outcome, effects) = inspector.handle(key, pageRows: max(1, display.layout.videoArea.height - 4))
        perform(effects, on: inspector)
        switch outcome {
        case .notMine: return false
        case .handled: return true
        case .close:
            closeInspector()
            return true
        case .message(let text):
            osd(text)
            return true
        }
    }

    /// UI loop: data that arrived for the inspector.
    func pollInspector() {
        guard let inspector = view.inspector else { return }
        if inspector.pollDocument() {
            revealPendingNode(inspector)
            display.screen.dirty = true
        }
        if inspector.pollPackets(), inspector.tab == .packets || inspector.tab == .frames { display.screen.dirty = true }
        if inspector.pollFrames() {
            inspector.frameRequested = false
            display.screen.dirty = true
        }
        if inspector.tab == .frames, inspector.frameRequested, inspector.worker?.isBusy == false { inspector.frameRequested = false }
    }
}
