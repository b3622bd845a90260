import AetherControl
import AetherInput
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
