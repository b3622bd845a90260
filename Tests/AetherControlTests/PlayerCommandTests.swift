import AetherCommands
import AetherBase
import AetherEngine
import AetherTestSupport
@testable import AetherControl
import Testing

struct PlayerCommandTests {
    /// `--hr-seek` against a seek's flags: mpv's table (an `exact` or `keyframes` flag wins).
    @Test func hrSeekDecidesWhichSeeksAreExact() {
        let references: [PlayerCommand.SeekReference] = [.relative, .absolute, .absolutePercent]
        func row(_ h: HRSeek, _ p: PlayerCommand.SeekPrecision) -> [Bool] { references.map { h.isExact(p, $0) } }
        #expect(row(.absolute, .auto) == [false, true, false])
        #expect(row(.yes, .auto) == [true, true, true])
        #expect(row(.no, .auto) == [false, false, false])
        for h in HRSeek.allCases {
            #expect(row(h, .exact) == [true, true, true])
            #expect(row(h, .keyframes) == [false, false, false])
        }
    }

    @Test func mpvCommandLines() throws {
        #expect(try PlayerCommand.parse("seek 10") == .seek(10, .relative, .auto))
        #expect(try PlayerCommand.parse("seek -1 exact") == .seek(-1, .relative, .exact))
        #expect(try PlayerCommand.parse("no-osd seek 50 absolute-percent+exact") == .seek(50, .absolutePercent, .exact))
        #expect(try PlayerCommand.parse("seek 90 absolute keyframes") == .seek(90, .absolute, .keyframes))
        #expect(try PlayerCommand.parse("cycle sub") == .cycle("sub", up: true))
        #expect(try PlayerCommand.parse("cycle sub down") == .cycle("sub", up: false))
        #expect(try PlayerCommand.parse("add volume -2") == .add("volume", -2))
        #expect(try PlayerCommand.parse("add chapter") == .add("chapter", 1))
        #expect(try PlayerCommand.parse("multiply speed 1.1") == .multiply("speed", 1.1))
        #expect(try PlayerCommand.parse("set pause yes") == .set("pause", .bool(true)))
        #expect(try PlayerCommand.parse("set volume 50") == .set("volume", .number(50)))
        #expect(try PlayerCommand.parse("loadfile \"/tmp/a b.mkv\" append") == .loadfile("/tmp/a b.mkv", .append))
        #expect(try PlayerCommand.parse("quit 3") == .quit(code: 3, watchLater: false))
        #expect(try PlayerCommand.parse("quit-watch-later") == .quit(code: 0, watchLater: true))
        #expect(try PlayerCommand.parse("screenshot video") == .screenshot(subtitles: false))
        #expect(try PlayerCommand.parse("show-text \"a \\\"b\\\"\"  # comment") == .showText("a \"b\"", expand: true))
        #expect(try PlayerCommand.parse("script-binding stats/display-stats-toggle") == .ui(.statsToggle))
        #expect(try PlayerCommand.parse("script-binding stats/display-stats") == .ui(.stats))
        #expect(try PlayerCommand.parse(words: ["playlist-play-index", "2"]) == .playlistPlay(2))
    }

    /// mpv's rule for `${…}` in a command's text (issue 62, item 4): a text line (input.conf, IPC)
    /// expands unless `raw`; a JSON array only with `expand-properties`.
    @Test func showTextExpandsAsMpvSays() throws {
        #expect(try PlayerCommand.parse("show-text ${filename}") == .showText("${filename}", expand: true))
        #expect(try PlayerCommand.parse("raw show-text ${filename}") == .showText("${filename}", expand: false))
        #expect(try PlayerCommand.parse("no-osd raw show-text x") == .showText("x", expand: false))
        #expect(try PlayerCommand.parse(words: ["show-text", "${filename}"]) == .showText("${filename}", expand: false))
        #expect(try PlayerCommand.parse(words: ["expand-properties", "show-text", "x"]) == .showText("x", expand: true))
        #expect(try PlayerCommand.parse(words: ["raw", "expand-properties", "show-text", "x"]) == .showText("x", expand: true),
                "the last prefix decides")
    }

    @Test func badCommandsSayWhy() {
        func message(_ line: String) -> String {
            do { _ = try PlayerCommand.parse(line); return "parsed" } catch { return error.message }
        }
        #expect(message("sek 10") == "unknown command 'sek'")
        #expect(message("seek ten") == "'seek': 'ten' is not a number")
        #expect(message("cycle volme") == "'cycle': unknown property 'volme'")
        #expect(message("show-text \"open") == "unterminated quote")
        #expect(message("") == "empty command")
    }

    @Test func snapshotAnswersPropertiesAsMpvNamesThem() {
        var s = PlayerSnapshot()
        #expect(s.property("time-pos") == PropertyValue.none)
        s.status = .paused
        s.position = 7.5
        s.duration = 10
        s.audio.track = 2
        #expect(s.property("pause") == .bool(true))
        #expect(s.property("time-pos") == .number(7.5))
        #expect(s.property("percent-pos") == .number(75))
        #expect(s.property("aid") == .number(2))
        #expect(s.property("sid") == .bool(false))
        #expect(s.property("nonsense") == nil)
        #expect(PlayerSnapshot.propertyNames.allSatisfy { s.property($0) != nil })
    }

    @Test func hubRunsRemoteCommandsOnTheHostAndReportsChanges() throws {
        let hub = RemoteHub()
        let events = Guarded<[PlayerEvent]>([])
        hub.subscribe { e in events.withLock { $0.append(e) } }
        var s = PlayerSnapshot()
        s.status = .playing
        hub.publish(s)
        let first = events.withLock { $0 }
        #expect(first.contains(.propertyChanged(name: "pause", value: .bool(false))))
        events.withLock { $0.removeAll() }
        s.status = .paused
        hub.publish(s)
        #expect(events.withLock { $0 } == [.propertyChanged(name: "pause", value: .bool(true))])
        // A remote caller waits for its command; the "host" (a thread of its own, as the UI's
        // loop is, not a task: the cooperative pool may be busy with other tests) runs it.
        let stop = Guarded(false)
        let host = Thread {
            // A tick every 5 ms until stopped.
            _ = waitUntil(.infinity, interval: 0.005) {
                for r in hub.takeRequests() { r.reply(r.command == .frameStep ? .ok : .failure("no")) }
                return stop.withLock { $0 }
            }
        }
        host.start()
        let result = hub.submitAndWait(.frameStep)
        #expect(result == .ok)
        stop.withLock { $0 = true }
        hub.close()
        #expect(hub.submitAndWait(.frameStep) == .failure("the player is shutting down"))
    }
}

import Foundation

struct PropertyValueJSONTests {
    @Test func jsonBooleansAreNotNumbers() throws {
        let parsed = try #require(try JSONValue.parse(Array(#"[true, 1, 0.5, "x", null]"#.utf8)).array)
        #expect(parsed.map { PropertyValue(json: $0) } == [.bool(true), .number(1), .number(0.5), .string("x"), PropertyValue.none])
    }
}
