import Foundation
import AetherControl
import AetherInput
import AetherMedia
@testable import AetherTUI
import Testing

/// The host's update on values (unit tier): a model and an event in, the model changed and the
/// effects out, no terminal and no player. The menus, help and the stats overlay, the message
/// line's turn, the bindings.
struct HostUpdateTests {
    let context = HostContext(bindings: InputBindings())

    func menu(_ kind: TrackMenu.Kind, values: [Int?], selection: Int = 0) -> TrackMenu {
        TrackMenu(kind: kind, items: values.map { TrackMenu.Item(label: "\($0.map(String.init) ?? "off")", value: $0, current: false) },
                  selection: selection)
    }

    @Test func theMenuMovesWrapsAndChoosesWithoutTheBindings() {
        var view = ViewState()
        view.menu = menu(.audio, values: [0, 1, nil])
        #expect(HostUpdate.update(&view, .key(.up), context: context) == [.redraw])
        #expect(view.menu?.selection == 2, "↑ on the first row wraps to the last")
        #expect(HostUpdate.update(&view, .key(.down), context: context) == [.redraw])
        #expect(view.menu?.selection == 0)
        _ = HostUpdate.update(&view, .key(.down), context: context)
        // Space is pause in the bindings; in a menu it chooses.
        #expect(HostUpdate.update(&view, .key(.character(" ")), context: context) == [.selectAudio(1), .redraw])
        #expect(view.menu == nil, "choosing closes the menu")
    }

    @Test func keysTheMenuDoesNotKnowDoNothingWhileItIsOpen() {
        var view = ViewState()
        view.menu = menu(.subtitles, values: [3, nil])
        #expect(HostUpdate.update(&view, .key(.character("p")), context: context) == [], "p would pause without the menu")
        #expect(view.menu != nil)
        #expect(HostUpdate.update(&view, .key(.character("q")), context: context) == [.redraw])
        #expect(view.menu == nil, "q closes the menu and does not quit")
    }

    @Test func aClickPicksItsRowAndOffRowsAreIgnored() {
        var view = ViewState()
        view.menu = menu(.playlist, values: [0, 1, 2])
        #expect(HostUpdate.update(&view, .menuPick(7), context: context) == [])
        #expect(view.menu != nil)
        #expect(HostUpdate.update(&view, .menuPick(2), context: context) == [.command(.playlistPlay(2)), .redraw])
        view.menu = menu(.subtitles, values: [5, nil])
        #expect(HostUpdate.update(&view, .menuPick(1), context: context) == [.selectSubtitle(nil), .redraw], "the off row")
    }

    @Test func escapeClosesHelpAndStatsAndOtherwiseGoesNowhere() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .key(.escape), context: context) == [])
        view.overlays.help = true
        view.overlays.statsUntil = 12
        #expect(HostUpdate.update(&view, .key(.escape), context: context) == [.redraw])
        #expect(!view.overlays.help && !view.overlays.statsShown)
    }

    @Test func otherKeysAreTheBindingsCommands() throws {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .key(.character("p")), context: context) == [.command(try #require(KeyMap.command(for: .character("p"))))])
        let (mine, _) = InputBindings.load(text: "p quit 7\n")
        #expect(HostUpdate.update(&view, .key(.character("p")), context: HostContext(bindings: mine)) == [.command(.quit(code: 7, watchLater: false))])
        #expect(HostUpdate.update(&view, .key(.character("Ж")), context: context) == [], "an unbound key")
    }

    @Test func timePassingEndsTheStatsAndTheMessageAndShowsTheNextInTurn() {
        var view = ViewState()
        view.overlays.showStatsBriefly(at: 100)
        view.message.show("first", seconds: 4, at: 100)
        view.message.queued = ["second"]
        #expect(HostUpdate.update(&view, .tick(now: 103.999), context: context) == [])
        #expect(HostUpdate.update(&view, .tick(now: 104), context: context) == [.redraw, .redraw])
        #expect(!view.overlays.statsShown)
        #expect(view.message.current?.text == "second" && view.message.current?.until == 108, "the queued message for 4 s from the tick")
        #expect(view.message.queued.isEmpty)
        #expect(HostUpdate.update(&view, .tick(now: 108), context: context) == [.redraw])
        #expect(view.message.current == nil)
    }

    @Test func theScreensOwnActionsChangeTheModelAndAskForWhatTheyNeed() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .ui(.telemetry, now: 5), context: context) == [.relayout, .redraw], "the pane moves the picture")
        #expect(view.chrome.showTelemetry)
        #expect(HostUpdate.update(&view, .ui(.stats, now: 5), context: context) == [.redraw])
        #expect(view.overlays.statsUntil == 5 + Overlays.statsSeconds)
        _ = HostUpdate.update(&view, .ui(.statsToggle, now: 6), context: context)
        #expect(view.overlays.stats && view.overlays.statsUntil == nil, "I pins the overlay: the brief one's end is gone")
        _ = HostUpdate.update(&view, .ui(.pinOSD, now: 7), context: context)
        #expect(view.chrome.pinned && view.message.current?.text == "transport bar pinned" && view.message.current?.until == 8.5)
        _ = HostUpdate.update(&view, .ui(.help, now: 7), context: context)
        _ = HostUpdate.update(&view, .ui(.remaining, now: 7), context: context)
        #expect(view.overlays.help && view.chrome.showRemaining)
        let opened = menu(.playlist, values: [0, 1], selection: 1)
        #expect(HostUpdate.update(&view, .openMenu(opened), context: context) == [.redraw])
        #expect(view.menu == opened)
    }
}

/// Scrub's marker and the filmstrip's choice on values (unit tier).
struct ScrubAndFilmstripUpdateTests {
    let context = HostContext(bindings: InputBindings(), barRange: 0...100, chapterStarts: [0, 30, 60])

    @Test func theMarkerMovesWithinTheBarAndAsksForItsThumbnail() {
        var view = ViewState()
        view.scrub = ScrubState(target: 50, byMouse: false)
        #expect(HostUpdate.update(&view, .key(.right), context: context) == [.wantPreview(55, duration: 100), .redraw])
        _ = HostUpdate.update(&view, .key(.up), context: context)
        #expect(view.scrub?.target == 100, "clamped to the bar's end")
        _ = HostUpdate.update(&view, .key(.home), context: context)
        #expect(view.scrub?.target == 0)
        _ = HostUpdate.update(&view, .key(.pageDown), context: context)
        _ = HostUpdate.update(&view, .key(.pageDown), context: context)
        #expect(view.scrub?.target == 60, "PgDn walks the chapters")
        _ = HostUpdate.update(&view, .key(.shiftRight), context: context)
        _ = HostUpdate.update(&view, .key(.pageUp), context: context)
        #expect(view.scrub?.target == 60, "PgUp more than a second into a chapter goes to its start")
        _ = HostUpdate.update(&view, .key(.pageUp), context: context)
        #expect(view.scrub?.target == 30, "…and from its start to the one before")
        let pause = KeyMap.command(for: .character("p")).map { [HostEffect.command($0)] }
        #expect(pause != nil && HostUpdate.update(&view, .key(.character("p")), context: context) == pause,
                "a key scrub does not know goes on to the bindings")
        #expect(view.scrub?.target == 30)
        #expect(HostUpdate.update(&view, .key(.enter), context: context) == [.seekExactly(30), .redraw])
        #expect(view.scrub == nil && view.preview == nil)
    }

    @Test func withNothingToScrubTheMarkerStays() {
        var view = ViewState()
        view.scrub = ScrubState(target: 5, byMouse: true)
        #expect(HostUpdate.update(&view, .key(.right), context: HostContext(bindings: InputBindings())) == [])
        #expect(view.scrub?.target == 5)
        #expect(HostUpdate.update(&view, .key(.character("b")), context: context) == [.redraw])
        #expect(view.scrub == nil)
    }

    @Test func theFilmstripChoosesAndSeeksToWhatItsThumbnailShows() {
        var view = ViewState()
        view.filmstrip = Filmstrip(times: [10, 20, 30], shown: [1: 19.5], selection: 0, width: 16)
        _ = HostUpdate.update(&view, .key(.end), context: context)
        _ = HostUpdate.update(&view, .key(.left), context: context)
        #expect(view.filmstrip?.selection == 1)
        #expect(HostUpdate.update(&view, .key(.enter), context: context) == [.seekExactly(19.5), .redraw], "the keyframe it shows, not its slot's time")
        #expect(view.filmstrip == nil)
    }
}

/// The mouse and the progress bar on values (unit tier): hover, drag, release.
struct BarMouseUpdateTests {
    let context = HostContext(bindings: InputBindings(), barRange: 0...100, position: 42)

    @Test func hoveringTheBarScrubsAndLeavingItEndsTheScrub() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .bar(BarMouse(action: .motion, onBar: true, time: 30)), context: context)
                == [.openPreviews, .wantPreview(30, duration: 100), .redraw])
        #expect(view.scrub == ScrubState(target: 30, byMouse: true))
        #expect(HostUpdate.update(&view, .bar(BarMouse(action: .motion, onBar: true, time: 31)), context: context)
                == [.wantPreview(31, duration: 100), .redraw], "the fetcher is asked for once")
        #expect(HostUpdate.update(&view, .bar(BarMouse(action: .motion, onBar: false, time: 31)), context: context) == [.redraw])
        #expect(view.scrub == nil)
    }

    @Test func aDragSeeksWhereItIsReleasedEvenOffTheBar() {
        var view = ViewState()
        _ = HostUpdate.update(&view, .bar(BarMouse(action: .press, onBar: true, time: 10)), context: context)
        #expect(view.dragging && view.scrub?.dragging == true)
        _ = HostUpdate.update(&view, .bar(BarMouse(action: .motion, onBar: false, time: 150)), context: context)
        #expect(view.scrub?.target == 100, "dragging off the row still moves the marker, within the bar")
        #expect(HostUpdate.update(&view, .bar(BarMouse(action: .release, onBar: false, time: 150)), context: context)
                == [.seekExactly(100), .redraw])
        #expect(view.scrub == nil && !view.dragging)
    }

    @Test func aKeyStartedScrubBeginsAtThePositionAndNeedsABar() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .ui(.scrub, now: 3), context: context) == [.openPreviews, .wantPreview(42, duration: 100), .redraw])
        #expect(view.scrub == ScrubState(target: 42, byMouse: false))
        // Moving off the bar does not end a scrub the keys began.
        _ = HostUpdate.update(&view, .bar(BarMouse(action: .motion, onBar: false, time: 5)), context: context)
        #expect(view.scrub != nil)
        var none = ViewState()
        #expect(HostUpdate.update(&none, .ui(.scrub, now: 3), context: HostContext(bindings: InputBindings())) == [.redraw])
        #expect(none.scrub == nil && none.message.current?.text == "nothing to scrub")
        #expect(HostUpdate.update(&none, .wheel(up: false), context: context) == [.command(.seek(-5, .relative, .auto))])
    }
}

/// #60 item 1: what the runtime saw happen reaches the model as an event, and the update is the
/// model's one writer (unit tier, on values).
struct HostEventsTests {
    var context = HostContext(bindings: InputBindings())

    @Test func theTickKeepsTheLiveBaselineScrollsTheMenuAndLaysOutWhenStale() {
        var view = ViewState(), context = context
        context.liveLatency = 9
        #expect(HostUpdate.update(&view, .tick(now: 1), context: context) == [])
        context.liveLatency = 12
        _ = HostUpdate.update(&view, .tick(now: 2), context: context)
        #expect(view.liveBaseline == 9, "the smallest latency seen is kept")
        context.liveLatency = 6
        _ = HostUpdate.update(&view, .tick(now: 3), context: context)
        #expect(view.liveBaseline == 6)
        view.menu = TrackMenu(kind: .playlist, items: (0..<10).map { .init(label: "\($0)", value: $0, current: false) }, selection: 8)
        context.menuRows = 3
        _ = HostUpdate.update(&view, .tick(now: 4), context: context)
        #expect(view.menu?.scroll == 6, "the selection in the three rows shown")
        context.layoutStale = true
        #expect(HostUpdate.update(&view, .tick(now: 5), context: context) == [.relayout, .redraw])
    }

    @Test func inputShowsTheChromeAndAMessageShowsForItsTime() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .input(now: 7), context: context) == [.redraw])
        #expect(view.chrome.lastInput == 7 && view.chrome.shownByInput(at: 9.9) && !view.chrome.shownByInput(at: 10))
        #expect(HostUpdate.update(&view, .message("seek 00:10", seconds: 1.5, now: 7), context: context) == [.redraw])
        #expect(view.message.current?.text == "seek 00:10" && view.message.current?.until == 8.5)
    }

    @Test func aNewItemForgetsTheLastOnesModes() {
        var view = ViewState()
        view.scrub = ScrubState(target: 5, byMouse: false)
        view.menu = TrackMenu(kind: .audio, items: [], selection: 0)
        view.liveBaseline = 4
        #expect(HostUpdate.update(&view, .itemChanged, context: context) == [.redraw])
        #expect(view.scrub == nil && view.menu == nil && view.liveBaseline == nil && view.filmstrip == nil && view.preview == nil)
    }

    @Test func theGovernorsScaleAndANewOutputReachTheLayoutThroughTheModel() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .pictureScale(1), context: context) == [], "the same scale: nothing to lay out")
        #expect(HostUpdate.update(&view, .pictureScale(0.5), context: context) == [.relayout])
        #expect(view.pictureScale == 0.5)
        #expect(HostUpdate.update(&view, .outputChanged(message: "video output: halfblock", now: 2), context: context) == [.relayout, .redraw])
        #expect(view.pictureScale == 1, "a new output starts at the whole area")
        #expect(view.message.current?.text == "video output: halfblock")
        _ = HostUpdate.update(&view, .outputChanged(message: nil, now: 3), context: context)
        #expect(view.message.current?.text == "video output: halfblock", "no message: the line is left as it was")
    }

    /// The inspector opened is drawn; closed, the output's scene is made again without its
    /// picture (an effect of the event, so that it follows the model's change whenever the
    /// event's turn comes).
    @Test func theInspectorClosedRemakesTheOutputsScene() {
        var view = ViewState()
        let inspector = InspectorScrollTests.inspector(rows: 3, prompt: nil)
        #expect(HostUpdate.update(&view, .inspector(inspector), context: context) == [.redraw])
        #expect(view.inspector === inspector)
        // The second's telemetry reaches its live tab through the update.
        var sample = TelemetrySnapshot()
        sample.buffer.seconds = 2.5
        #expect(HostUpdate.update(&view, .telemetry(sample), context: context) == [.redraw])
        #expect(inspector.live["buffered"] == [2.5])
        #expect(HostUpdate.update(&view, .inspector(nil), context: context) == [.redraw, .outputScene])
        #expect(view.inspector == nil)
    }

    @Test func startUpAndEngineWarningsReachTheMessageLine() {
        var view = ViewState()
        _ = HostUpdate.update(&view, .startupWarnings(["input.conf: line 3: no such key"], now: 1), context: context)
        #expect(view.message.current?.text.contains("input.conf") == true)
        view.message.current = nil
        #expect(HostUpdate.update(&view, .engineWarnings(["subtitle stream 2 left out"], now: 20), context: context) == [.redraw])
        #expect(view.message.current?.text.contains("stream 2") == true)
        #expect(HostUpdate.update(&view, .engineWarnings(["subtitle stream 2 left out"], now: 21), context: context) == [], "said once")
    }

    /// The model's one writer is the update: the runtime's model has a private setter and
    /// `send` is the one place it hands the model over; everything else in the host takes the
    /// model by value (drawing, laying out, the governor), so the compiler refuses a write.
    @Test func theUpdateIsTheModelsOneWriter() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let app = root.appendingPathComponent("Sources/AetherTUI")
        let runtime = try String(contentsOf: app.appendingPathComponent("App/HostLoop.swift"), encoding: .utf8)
        #expect(runtime.contains("private(set) var view = ViewState()"))
        var writers: [String] = []
        let files = FileManager.default.enumerator(atPath: app.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        for file in files {
            let text = try String(contentsOf: app.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            // In the loop's file, the update (`enum HostUpdate { … }`) hands the model to its modes.
            let update = lines.firstIndex { $0.hasPrefix("enum HostUpdate {") }
            let updateEnd = update.flatMap { start in lines[start...].firstIndex { $0 == "}" } }
            for (number, line) in lines.enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                if file == "App/HostLoop.swift", let update, let updateEnd, (update...updateEnd).contains(number) { continue }
                // The update's own files hand the model between its modes; the runtime hands
                // it to the update in one place.
                let handsOver = line.contains("inout ViewState") || line.contains("&view")
                guard handsOver, file != "App/ModeUpdates.swift" else { continue }
                writers.append("\(file):\(number + 1)")
            }
        }
        #expect(writers == ["App/HostLoop.swift:\(lineOf("perform(HostUpdate.update(&view", in: runtime))"], "the model handed over outside the update: \(writers)")
    }

    private func lineOf(_ text: String, in source: String) -> Int {
        (source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) } ?? -1) + 1
    }
}
