import AetherCommands
import AetherEngine
@testable import AetherControl
import AetherTestSupport
import Foundation
import Testing

/// The MPRIS server against a private `dbus-daemon` and the real `playerctl`, with a stand-in
/// host loop that runs the hub's commands on a snapshot.
@Suite struct MPRISTests {
    // MARK: the model (no bus)

    @Test func metadataDescribesTheCurrentItem() {
        var s = PlayerSnapshot()
        #expect(MPRIS.metadata(s) == [BusEntry(key: "mpris:trackid", value: .objectPath(MPRIS.noTrack))])
        s = FakeHost.song
        let metadata = Dictionary(uniqueKeysWithValues: MPRIS.metadata(s).map { ($0.key, $0.value) })
        #expect(metadata["mpris:trackid"] == .objectPath("/org/aether_tui/track/1"))
        #expect(metadata["mpris:length"] == .int64(12_500_000))
        #expect(metadata["xesam:title"] == .string("Song Title"))
        #expect(metadata["xesam:artist"] == .strings(["The Artist"]))
        #expect(metadata["xesam:album"] == .string("An Album"))
        #expect(metadata["xesam:albumArtist"] == .strings(["Various"]))
        #expect(metadata["xesam:genre"] == .strings(["Test"]))
        #expect(metadata["xesam:trackNumber"] == .int32(7))
        #expect(metadata["xesam:url"] == .string("file:///music/a%20song.flac"))
        #expect(metadata["mpris:artUrl"] == nil, "no cover written")
        s.item.artURL = "file:///cache/aether-tui/covers/1f.png"
        #expect(Dictionary(uniqueKeysWithValues: MPRIS.metadata(s).map { ($0.key, $0.value) })["mpris:artUrl"]
                == .string("file:///cache/aether-tui/covers/1f.png"))
        s.duration = nil
        s.item.path = "https://example.org/stream.ogg"
        let stream = Dictionary(uniqueKeysWithValues: MPRIS.metadata(s).map { ($0.key, $0.value) })
        #expect(stream["mpris:length"] == nil)
        #expect(stream["xesam:url"] == .string("https://example.org/stream.ogg"))
    }

    @Test func textSdBusWouldRejectIsReplaced() {
        #expect(MPRIS.busText("plain ünïcødé 🎵") == "plain ünïcødé 🎵")
        #expect(MPRIS.busText("a\u{0}b") == "ab")
        // Valid scalars, but not to sd-bus (Swift's literals refuse some of them: built by value).
        let nonCharacters = [0xFFFE, 0xFDD0, 0x1FFFF].map { String(Unicode.Scalar($0)!) }
        #expect(MPRIS.busText("x" + nonCharacters.joined(separator: "y")) == "x\u{FFFD}y\u{FFFD}y\u{FFFD}")
    }

    @Test func methodsBecomePlayerCommands() {
        let s = FakeHost.song
        #expect(MPRIS.outcome(of: .playPause, s) == .run(.cycle("pause", up: true)))
        #expect(MPRIS.outcome(of: .play, s) == .run(.set("pause", .bool(false))))
        #expect(MPRIS.outcome(of: .pause, s) == .run(.set("pause", .bool(true))))
        #expect(MPRIS.outcome(of: .stop, s) == .run(.stop))
        #expect(MPRIS.outcome(of: .quit, s) == .run(.quit(code: 0, watchLater: false)))
        #expect(MPRIS.outcome(of: .raise, s) == .ignore)
        #expect(MPRIS.outcome(of: .next, s) == .run(.playlistNext))
        // The spec: no effect when CanGoPrevious is false.
        #expect(MPRIS.outcome(of: .previous, s) == .ignore)
        #expect(MPRIS.outcome(of: .seek(-2_500_000), s) == .run(.seek(-2.5, .relative, .auto)))
        #expect(MPRIS.outcome(of: .setPosition(trackID: "/org/aether_tui/track/1", 3_000_000), s)
            == .run(.seek(3, .absolute, .exact)))
        // A stale track id, or a position past the end, is ignored (the spec).
        #expect(MPRIS.outcome(of: .setPosition(trackID: "/org/aether_tui/track/0", 3_000_000), s) == .ignore)
        #expect(MPRIS.outcome(of: .setPosition(trackID: "/org/aether_tui/track/1", 13_000_000), s) == .ignore)
        #expect(MPRIS.outcome(of: .openURI("file:///tmp/a%20b.mkv"), s) == .run(.loadfile("/tmp/a b.mkv", .replace)))
        #expect(MPRIS.outcome(of: .openURI("https://example.org/x.ogg"), s) == .run(.loadfile("https://example.org/x.ogg", .replace)))
        guard case .fail(let failure) = MPRIS.outcome(of: .openURI("smb://host/x.mkv"), s) else {
            Issue.record("smb: was accepted")
            return
        }
        #expect(failure.name == MPRIS.ErrorName.notSupported)
        // Nothing loaded: nothing to play, pause or seek.
        let idle = PlayerSnapshot()
        #expect(MPRIS.outcome(of: .playPause, idle) == .ignore)
        #expect(MPRIS.outcome(of: .seek(1_000_000), idle) == .ignore)
    }

    @Test func propertyWritesBecomePlayerCommands() {
        let s = FakeHost.song
        #expect(MPRIS.commands(setting: "Volume", to: .double(0.5), s) == .success([.set("volume", .number(50))]))
        #expect(MPRIS.commands(setting: "Volume", to: .double(-1), s) == .success([.set("volume", .number(0))]))
        #expect(MPRIS.commands(setting: "Volume", to: .double(9), s) == .success([.set("volume", .number(130))]))
        #expect(MPRIS.commands(setting: "Rate", to: .double(1.5), s) == .success([.set("speed", .number(1.5))]))
        #expect(MPRIS.commands(setting: "Rate", to: .double(10), s) == .success([.set("speed", .number(4))]))
        #expect(MPRIS.commands(setting: "Rate", to: .double(0), s) == .success([.set("pause", .bool(true))]))
        #expect(MPRIS.commands(setting: "LoopStatus", to: .string("Track"), s) == .success([.set("loop-file", .bool(true))]))
        #expect(MPRIS.commands(setting: "LoopStatus", to: .string("Playlist"), s)
            == .success([.set("loop-file", .bool(false)), .set("loop-playlist", .bool(true))]))
        #expect(MPRIS.commands(setting: "LoopStatus", to: .string("None"), s)
            == .success([.set("loop-file", .bool(false)), .set("loop-playlist", .bool(false))]))
        #expect(throws: MPRIS.Failure.self) { try MPRIS.commands(setting: "LoopStatus", to: .string("Forever"), s).get() }
        #expect(MPRIS.commands(setting: "Shuffle", to: .bool(true), s) == .success([.set("shuffle", .bool(true))]))
        #expect(MPRIS.commands(setting: "Shuffle", to: .bool(false), s) == .success([.set("shuffle", .bool(false))]))
    }

    @Test func onlyRealChangesAreSignalledAndNeverThePosition() {
        let old = FakeHost.song
        var new = old
        new.position += 5
        #expect(MPRIS.changedProperties(from: old, to: new) == [])
        new.status = .paused
        new.audio.volume = 40
        new.item.tags.title = "Another"  // media-title wins over the tag: the metadata is unchanged
        #expect(MPRIS.changedProperties(from: old, to: new) == ["PlaybackStatus", "Volume"])
        new.queue.position = 2
        new.queue.canGoPrevious = true
        #expect(MPRIS.changedProperties(from: old, to: new) == ["PlaybackStatus", "Metadata", "Volume", "CanGoPrevious"])
    }

    // MARK: on a real bus

    @Test func playerctlReadsTheSnapshot() throws {
        let bus = try SessionBus()
        let host = FakeHost(FakeHost.song)
        defer { host.stop() }
        let server = try #require(try MPRISServer.start(hub: host.hub, address: bus.address, clock: .monotonic))
        defer { server.stop() }
        #expect(server.busName == "org.mpris.MediaPlayer2.aether-tui")
        #expect(bus.playerctl("-l").stdout == "aether-tui\n")
        #expect(bus.playerctl("-p", "aether-tui", "status").stdout == "Playing\n")
        // playerctl extrapolates a playing position from the time of its read.
        let position = try #require(Double(bus.playerctl("-p", "aether-tui", "position").stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(position - 4.25) < 0.1)
        #expect(bus.playerctl("-p", "aether-tui", "volume").stdout == "0.800000\n")
        #expect(bus.playerctl("-p", "aether-tui", "loop").stdout == "None\n")
        #expect(bus.playerctl("-p", "aether-tui", "shuffle").stdout == "Off\n")
        let format = "{{mpris:trackid}}|{{title}}|{{artist}}|{{album}}|{{mpris:length}}|{{xesam:trackNumber}}|{{xesam:url}}"
        #expect(bus.playerctl("-p", "aether-tui", "metadata", "--format", format).stdout
            == "'/org/aether_tui/track/1'|Song Title|The Artist|An Album|12500000|7|file:///music/a%20song.flac\n")
        let identity = bus.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=\(server.busName)",
                                "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties.Get",
                                "string:org.mpris.MediaPlayer2", "string:Identity"])
        #expect(identity.stdout.contains("string \"aether-tui\""), "\(identity.stdout)\(identity.stderr)")
        // Titles sd-bus would refuse (NUL, noncharacters) still come through, replaced.
        host.update { $0.item.mediaTitle = "bad\u{0}\u{FFFF}title" }
        // The server publishes on its own thread: wait for the new title, then check it whole.
        var title = ""
        #expect(waitUntil(5, interval: 0.05) {
            title = bus.playerctl("-p", "aether-tui", "metadata", "title").stdout
            return title != "Song Title\n"
        })
        #expect(title == "bad\u{FFFD}title\n")
    }

    @Test func playerctlDrivesTheHost() throws {
        let bus = try SessionBus()
        let host = FakeHost(FakeHost.song)
        defer { host.stop() }
        let server = try #require(try MPRISServer.start(hub: host.hub, address: bus.address, clock: .monotonic))
        defer { server.stop() }
        func run(_ arguments: String...) -> [PlayerCommand] {
            host.takeCommands()
            let r = bus.run(["/usr/bin/playerctl", "-p", "aether-tui"] + arguments)
            #expect(r.status == 0, "playerctl \(arguments): \(r.stderr)")
            return host.takeCommands(waitingFor: 1, timeout: 2)
        }
        #expect(run("play-pause") == [.cycle("pause", up: true)])
        // Answered once the host has run it: the status already says so.
        #expect(bus.playerctl("-p", "aether-tui", "status").stdout == "Paused\n")
        #expect(run("play") == [.set("pause", .bool(false))])
        #expect(run("pause") == [.set("pause", .bool(true))])
        #expect(run("volume", "0.5") == [.set("volume", .number(50))])
        #expect(run("position", "3") == [.seek(3, .absolute, .exact)])
        #expect(run("position", "2+") == [.seek(2, .relative, .auto)])
        #expect(run("next") == [.playlistNext])
        #expect(run("loop", "Track") == [.set("loop-file", .bool(true))])
        #expect(run("open", "file:///tmp/a%20b.mkv") == [.loadfile("/tmp/a b.mkv", .replace)])
        #expect(run("stop") == [.stop])
        // CanGoPrevious is false: Previous has no effect and the host is not asked (playerctl
        // itself refuses, so the call goes through dbus-send).
        host.takeCommands()
        let previous = bus.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=\(MPRIS.busName)",
                                "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player.Previous"])
        #expect(previous.status == 0, "\(previous.stderr)")
        // Answered, so anything it asked of the host is queued: a command sent after it, once
        // the host has it, is all the host got.
        #expect(bus.run(["/usr/bin/playerctl", "-p", "aether-tui", "next"]).status == 0)
        #expect(host.takeCommands(waitingFor: 1, timeout: 2) == [.playlistNext])
    }

    @Test func changesAndJumpsAreSignalled() throws {
        let bus = try SessionBus()
        let host = FakeHost(FakeHost.song)
        defer { host.stop() }
        let server = try #require(try MPRISServer.start(hub: host.hub, address: bus.address, clock: .monotonic))
        defer { server.stop() }
        let log = try bus.monitorSignals(path: "/org/mpris/MediaPlayer2")
        // The position moving on its own is never signalled: its moves are published (the
        // host's next tick) before a change that is, so a signal of theirs would come first.
        let start = host.hub.snapshot.position
        for _ in 0..<5 { host.update { $0.position += 0.1 } }
        try Poll.until { abs(host.hub.snapshot.position - (start + 0.5)) < 1e-9 }
        host.update { $0.status = .paused; $0.audio.volume = 30 }
        try Poll.until { log.text.contains("PropertiesChanged") }
        #expect(log.text.components(separatedBy: "member=PropertiesChanged").count == 2, "one signal, the pause's:\n\(log.text)")
        #expect(log.text.contains("string \"PlaybackStatus\""))
        #expect(log.text.contains("string \"Paused\""))
        #expect(log.text.contains("string \"Volume\""))
        #expect(log.text.contains("double 0.3"))
        #expect(!log.text.contains("string \"Position\""))
        // A seek sends Seeked with the new position in µs.
        host.hub.submit(.seek(9, .absolute, .exact))
        try Poll.until { log.text.contains("member=Seeked") }
        #expect(log.text.contains("int64 9000000"), "\(log.text)")
        // A new item changes the metadata.
        host.update { $0.queue.position = 2; $0.item.mediaTitle = "Next Song" }
        try Poll.until { log.text.contains("Next Song") }
        #expect(log.text.contains("object path \"/org/aether_tui/track/2\""))
    }

    @Test func aSecondPlayerTakesTheInstanceName() throws {
        let bus = try SessionBus()
        let host = FakeHost(FakeHost.song)
        defer { host.stop() }
        let first = try #require(try MPRISServer.start(hub: host.hub, address: bus.address, clock: .monotonic))
        defer { first.stop() }
        let second = try #require(try MPRISServer.start(hub: host.hub, address: bus.address, clock: .monotonic))
        defer { second.stop() }
        #expect(second.busName == "org.mpris.MediaPlayer2.aether-tui.instance\(getpid())")
        let players = Set(bus.playerctl("-l").stdout.split(separator: "\n"))
        #expect(players == ["aether-tui", "aether-tui.instance\(getpid())"])
        #expect(bus.playerctl("-p", "aether-tui.instance\(getpid())", "status").stdout == "Playing\n")
    }

    @Test func stopReleasesTheNameAndIsIdempotent() throws {
        let bus = try SessionBus()
        let host = FakeHost(FakeHost.song)
        defer { host.stop() }
        let services = RemoteServices(hub: host.hub, clock: .monotonic)
        let server = try #require(try MPRISServer.start(hub: host.hub, address: bus.address, clock: .monotonic))
        #expect(bus.playerctl("-l").stdout == "aether-tui\n")
        server.stop()
        server.stop()
        #expect(bus.playerctl("-l").stdout == "")
        // The name is free again for the next player.
        let again = try #require(try MPRISServer.start(hub: host.hub, address: bus.address, clock: .monotonic))
        #expect(again.busName == MPRIS.busName)
        again.stop()
        // --no-mpris: nothing starts, nothing to warn about.
        var options = RemoteServices.Options()
        options.mpris = false
        #expect(services.start(options) == [])
        #expect(services.mprisBusName == nil)
        services.stop()
    }

    @Test func noBusMeansNoServerAndNoWarning() throws {
        let host = FakeHost(FakeHost.song)
        defer { host.stop() }
        #expect(try MPRISServer.start(hub: host.hub, address: "unix:path=/nonexistent/aether/bus", clock: .monotonic) == nil)
        let file = NSTemporaryDirectory() + "aether-not-a-bus-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try MPRISServer.start(hub: host.hub, address: "unix:path=\(file)", clock: .monotonic) == nil)
    }

    /// A method call waits for the player's answer until its deadline, on the server's clock (a
    /// manual one here, moved by the test): answered a millisecond before it, the call succeeds;
    /// never answered, it fails with the server's own error once the deadline has passed (not
    /// dbus-send's, which would come at its 10 s reply timeout); reads are answered meanwhile.
    @Test func aCallWaitsForThePlayerUntilItsDeadlineAndTheBusStaysResponsive() throws {
        let bus = try SessionBus()
        let hub = RemoteHub()  // no host drains it: the test answers for the player
        var s = FakeHost.song
        s.status = .paused
        hub.publish(s)
        let clock = ManualTimeSource()
        let server = try #require(try MPRISServer.start(hub: hub, address: bus.address, clock: clock.source))
        defer { server.stop() }
        let queued = GuardedCondition(0)
        hub.onRequest { queued.update { $0 += 1 } }
        /// PlayPause through dbus-send, on a thread of its own: its result, once it has one.
        func playPause() -> GuardedCondition<ProcessResult?> {
            let result = GuardedCondition<ProcessResult?>(nil)
            Thread {
                let r = bus.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--reply-timeout=10000",
                                 "--dest=\(MPRIS.busName)", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player.PlayPause"],
                                timeout: 20)
                result.update { $0 = r }
            }.start()
            return result
        }
        /// Two reads, answered: the bus thread has been round its loop, where it fails the calls
        /// that are due, since the clock was moved (the second read is handled a round after
        /// the first).
        func readsAreAnswered() {
            for _ in 0..<2 { #expect(bus.playerctl("-p", "aether-tui", "status").stdout == "Paused\n") }
        }

        // Answered just before its deadline: the call succeeds.
        let answered = playPause()
        #expect(queued.wait(until: { $0 == 1 }, timeout: 10), "the call reached the player")
        let first = hub.takeRequests()
        #expect(first.map(\.command) == [.cycle("pause", up: true)])
        clock.advance(milliseconds: Int64(MPRISServer.commandTimeout * 1000) - 1)
        readsAreAnswered()
        for request in first { request.reply(.ok) }
        #expect(answered.wait(until: { $0 != nil }, timeout: 15))
        let inTime = try #require(answered.withLock { $0 })
        #expect(inTime.status == 0, "\(inTime.stderr)")

        // Never answered: the bus answers reads while the call waits, and the call fails once
        // its deadline has passed.
        let unanswered = playPause()
        #expect(queued.wait(until: { $0 == 2 }, timeout: 10), "the call reached the player")
        #expect(hub.takeRequests().map(\.command) == [.cycle("pause", up: true)])
        readsAreAnswered()
        clock.advance(milliseconds: Int64(MPRISServer.commandTimeout * 1000) + 1)
        readsAreAnswered()
        #expect(unanswered.wait(until: { $0 != nil }, timeout: 15))
        let expired = try #require(unanswered.withLock { $0 })
        #expect(expired.status != 0)
        #expect(expired.stderr.contains("the player did not answer"), "\(expired.stderr)")
        #expect(hub.takeRequests().isEmpty)
    }

    @Test func quitIsAnsweredBeforeThePlayerLeaves() throws {
        let bus = try SessionBus()
        let hub = RemoteHub()
        hub.publish(FakeHost.song)
        let server = try #require(try MPRISServer.start(hub: hub, address: bus.address, clock: .monotonic))
        defer { server.stop() }
        let r = bus.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=\(MPRIS.busName)",
                         "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Quit"])
        #expect(r.status == 0, "\(r.stderr)")
        // The server hands the command to the hub on its own thread: wait for it.
        var commands: [PlayerCommand] = []
        #expect(waitUntil(5, interval: 0.01) {
            commands += hub.takeRequests().map(\.command)
            return !commands.isEmpty
        })
        #expect(commands == [.quit(code: 0, watchLater: false)])
    }
}

/// A stand-in for the TUI's or headless host loop: every 5 ms it runs the hub's commands on
/// its snapshot (recording them), answers them and publishes the snapshot, as the real host
/// does on each tick.
final class FakeHost: Sendable {
    let hub = RemoteHub()
    private struct State {
        var snapshot: PlayerSnapshot
        var commands: [PlayerCommand] = []
        var running = true
    }
    private let state: Guarded<State>
    private let finished = DispatchSemaphore(value: 0)

    /// Playing item 2 of 3 (a song with every tag), 4.25 s of 12.5 s, volume 80 %.
    static let song: PlayerSnapshot = {
        var s = PlayerSnapshot()
        s.status = .playing
        s.position = 4.25
        s.duration = 12.5
        s.audio.volume = 80
        s.queue.position = 1
        s.queue.count = 3
        s.item.path = "/music/a song.flac"
        s.item.filename = "a song.flac"
        s.item.mediaTitle = "Song Title"
        s.item.tags.title = "Song Title"
        s.item.tags.artist = "The Artist"
        s.item.tags.album = "An Album"
        s.item.tags.albumArtist = "Various"
        s.item.tags.genre = "Test"
        s.item.tags.track = 7
        s.queue.canGoNext = true
        s.queue.canGoPrevious = false
        return s
    }()

    init(_ snapshot: PlayerSnapshot) {
        state = Guarded(State(snapshot: snapshot))
        hub.publish(snapshot)
        let thread = Thread { [self] in
            // A tick every 5 ms until stopped.
            _ = waitUntil(.infinity, interval: 0.005) {
                tick()
                return !state.withLock { $0.running }
            }
            finished.signal()
        }
        thread.start()
    }

    func stop() {
        guard state.withLock({ s in defer { s.running = false }; return s.running }) else { return }
        finished.wait()
        hub.close()
    }

    /// Changes the snapshot (published on the next tick).
    func update(_ change: (inout PlayerSnapshot) -> Void) {
        state.withLock { change(&$0.snapshot) }
    }

    /// The commands run so far (and forgets them); waits until there are `count` of them.
    @discardableResult
    func takeCommands(waitingFor count: Int = 0, timeout: Double = 0) -> [PlayerCommand] {
        _ = waitUntil(timeout, interval: 0.01) { state.withLock { $0.commands.count } >= count }
        return state.withLock { s in
            defer { s.commands.removeAll() }
            return s.commands
        }
    }

    private func tick() {
        for request in hub.takeRequests() {
            let seeked = state.withLock { s -> Double? in
                s.commands.append(request.command)
                return Self.apply(request.command, to: &s.snapshot)
            }
            // The snapshot is published before the answer, so a client that reads after the
            // answer sees the change.
            hub.publish(state.withLock { $0.snapshot })
            if let seeked { hub.emit(.seeked(position: seeked)) }
            request.reply(.ok)
        }
        hub.publish(state.withLock { $0.snapshot })
    }

    /// Runs `command` on `s`; returns the new position after a seek.
    private static func apply(_ command: PlayerCommand, to s: inout PlayerSnapshot) -> Double? {
        switch command {
        case .cycle("pause", _): s.status = s.status == .playing ? .paused : .playing
        case .set("pause", .bool(let paused)): s.status = paused ? .paused : .playing
        case .set("volume", .number(let v)): s.audio.volume = v
        case .set("speed", .number(let v)): s.speed = v
        case .set("loop-file", .bool(let b)): s.queue.loopFile = b
        case .set("loop-playlist", .bool(let b)): s.queue.loopPlaylist = b
        case .seek(let t, let reference, _):
            s.position = reference == .relative ? s.position + t : t
            return s.position
        case .stop: s.status = .stopped
        default: break
        }
        return nil
    }
}

/// Unit tier: the cover files behind `mpris:artUrl`: one file per picture (named by its pixels),
/// and only the newest kept.
@Suite struct CoverFileTests {
    @Test func oneFilePerPictureAndTheNewestKept() throws {
        let dir = NSTemporaryDirectory() + "aether-covers-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let red = StillImage(width: 2, height: 2, pixels: (0..<12).map { $0 % 3 == 0 ? 255 : 0 }, seconds: 0, isKeyframe: true)
        let a = try #require(CoverFile.url(for: red, in: dir))
        #expect(CoverFile.url(for: red, in: dir) == a && a.hasPrefix("file://") && a.hasSuffix(".png"))
        for k in 0..<(CoverFile.keep + 3) {
            _ = CoverFile.url(for: StillImage(width: 1, height: 1, pixels: [UInt8(k), 1, 2], seconds: 0, isKeyframe: true), in: dir)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".png") }
        #expect(files.count == CoverFile.keep, "\(files.count) files")
    }
}
