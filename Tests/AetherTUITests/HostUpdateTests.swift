import AetherControl
import AetherInput
@testable import AetherTUI
import Testing

/// The host's update on values (unit tier): a model and an event in, the model changed and the
/// effects out, no terminal and no player. The menus, help and the stats overlay, the message
/// line's turn, the bindings.
struct HostUpdateTests {
    let bindings = InputBindings()

    func menu(_ kind: TrackMenu.Kind, values: [Int?], selection: Int = 0) -> TrackMenu {
        TrackMenu(kind: kind, items: values.map { TrackMenu.Item(label: "\($0.map(String.init) ?? "off")", value: $0, current: false) },
                  selection: selection)
    }

    @Test func theMenuMovesWrapsAndChoosesWithoutTheBindings() {
        var view = ViewState()
        view.menu = menu(.audio, values: [0, 1, nil])
        #expect(HostUpdate.update(&view, .key(.up), bindings: bindings) == [.redraw])
        #expect(view.menu?.selection == 2, "↑ on the first row wraps to the last")
        #expect(HostUpdate.update(&view, .key(.down), bindings: bindings) == [.redraw])
        #expect(view.menu?.selection == 0)
        _ = HostUpdate.update(&view, .key(.down), bindings: bindings)
        // Space is pause in the bindings; in a menu it chooses.
        #expect(HostUpdate.update(&view, .key(.character(" ")), bindings: bindings) == [.selectAudio(1), .redraw])
        #expect(view.menu == nil, "choosing closes the menu")
    }

    @Test func keysTheMenuDoesNotKnowDoNothingWhileItIsOpen() {
        var view = ViewState()
        view.menu = menu(.subtitles, values: [3, nil])
        #expect(HostUpdate.update(&view, .key(.character("p")), bindings: bindings) == [], "p would pause without the menu")
        #expect(view.menu != nil)
        #expect(HostUpdate.update(&view, .key(.character("q")), bindings: bindings) == [.redraw])
        #expect(view.menu == nil, "q closes the menu and does not quit")
    }

    @Test func aClickPicksItsRowAndOffRowsAreIgnored() {
        var view = ViewState()
        view.menu = menu(.playlist, values: [0, 1, 2])
        #expect(HostUpdate.update(&view, .menuPick(7), bindings: bindings) == [])
        #expect(view.menu != nil)
        #expect(HostUpdate.update(&view, .menuPick(2), bindings: bindings) == [.command(.playlistPlay(2)), .redraw])
        view.menu = menu(.subtitles, values: [5, nil])
        #expect(HostUpdate.update(&view, .menuPick(1), bindings: bindings) == [.selectSubtitle(nil), .redraw], "the off row")
    }

    @Test func escapeClosesHelpAndStatsAndOtherwiseGoesNowhere() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .key(.escape), bindings: bindings) == [])
        view.showHelp = true
        view.statsUntil = 12
        #expect(HostUpdate.update(&view, .key(.escape), bindings: bindings) == [.redraw])
        #expect(!view.showHelp && !view.statsShown)
    }

    @Test func otherKeysAreTheBindingsCommands() throws {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .key(.character("p")), bindings: bindings) == [.command(try #require(KeyMap.command(for: .character("p"))))])
        let (mine, _) = InputBindings.load(text: "p quit 7\n")
        #expect(HostUpdate.update(&view, .key(.character("p")), bindings: mine) == [.command(.quit(code: 7, watchLater: false))])
        #expect(HostUpdate.update(&view, .key(.character("Ж")), bindings: bindings) == [], "an unbound key")
    }

    @Test func timePassingEndsTheStatsAndTheMessageAndShowsTheNextInTurn() {
        var view = ViewState()
        view.showStatsBriefly(at: 100)
        view.showMessage("first", seconds: 4, at: 100)
        view.queuedMessages = ["second"]
        #expect(HostUpdate.update(&view, .tick(now: 103.999), bindings: bindings) == [])
        #expect(HostUpdate.update(&view, .tick(now: 104), bindings: bindings) == [.redraw, .redraw])
        #expect(!view.statsShown)
        #expect(view.osdMessage?.text == "second" && view.osdMessage?.until == 108, "the queued message for 4 s from the tick")
        #expect(view.queuedMessages.isEmpty)
        #expect(HostUpdate.update(&view, .tick(now: 108), bindings: bindings) == [.redraw])
        #expect(view.osdMessage == nil)
    }

    @Test func theScreensOwnActionsChangeTheModelAndAskForWhatTheyNeed() {
        var view = ViewState()
        #expect(HostUpdate.update(&view, .ui(.telemetry, now: 5), bindings: bindings) == [.relayout, .redraw], "the pane moves the picture")
        #expect(view.showTelemetry)
        #expect(HostUpdate.update(&view, .ui(.stats, now: 5), bindings: bindings) == [.redraw])
        #expect(view.statsUntil == 5 + ViewState.statsSeconds)
        _ = HostUpdate.update(&view, .ui(.statsToggle, now: 6), bindings: bindings)
        #expect(view.showStats && view.statsUntil == nil, "I pins the overlay: the brief one's end is gone")
        _ = HostUpdate.update(&view, .ui(.pinOSD, now: 7), bindings: bindings)
        #expect(view.chromePinned && view.osdMessage?.text == "transport bar pinned" && view.osdMessage?.until == 8.5)
        _ = HostUpdate.update(&view, .ui(.help, now: 7), bindings: bindings)
        _ = HostUpdate.update(&view, .ui(.remaining, now: 7), bindings: bindings)
        #expect(view.showHelp && view.showRemaining)
        let opened = menu(.playlist, values: [0, 1], selection: 1)
        #expect(HostUpdate.update(&view, .openMenu(opened), bindings: bindings) == [.redraw])
        #expect(view.menu == opened)
    }
}
