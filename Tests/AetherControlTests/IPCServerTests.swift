import AetherCommands
import AetherBase
@testable import AetherControl
import AetherEngine
import AetherTestSupport
import Foundation
import Synchronization  // Atomic
import Testing

/// Plays the host: every few milliseconds it runs the hub's queued commands against its own
/// snapshot, publishes the snapshot, then replies (so a reply implies the new state is readable).
/// Held (``hold()``), it runs none: they wait in the hub for the test to look at and run.
final class IPCFakeHost: Sendable {
    let hub = RemoteHub()
    private let state: Guarded<(snapshot: PlayerSnapshot, commands: [PlayerCommand], holding: Bool)>
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init(_ snapshot: PlayerSnapshot = IPCFakeHost.playing) {
        state = Guarded((snapshot, [], false))
        hub.publish(snapshot)
        let thread = Thread { [self] in
            // A tick every 5 ms until stopped.
            _ = waitUntil(.infinity, interval: 0.005) {
                tick()
                return !running.load(ordering: .relaxed)
            }
            finished.signal()
        }
        thread.start()
    }

    static var playing: PlayerSnapshot {
        var s = PlayerSnapshot()
        s.status = .playing
        s.position = 1
        s.duration = 10
        s.audio.track = 1
        s.queue.position = 0
        s.queue.count = 1
        s.item.path = "/media/clip.mkv"
        s.item.filename = "clip.mkv"
        s.item.mediaTitle = "Clip"
        return s
    }

    /// Commands run so far.
    var commands: [PlayerCommand] { state.withLock { $0.commands } }
    var snapshot: PlayerSnapshot { state.withLock { $0.snapshot } }

    /// A busy host: the ticks run no command until ``resume()``, so what the server sends
    /// waits in the hub, where the test takes it (``RemoteHub/takeRequests()``) and runs it
    /// (``run(_:)``) when it chooses. A tick takes requests with the state's lock held: once
    /// this returns, no tick takes one.
    func hold() { state.withLock { $0.holding = true } }

    /// The ticks run the hub's commands again.
    func resume() { state.withLock { $0.holding = false } }

    /// Changes the snapshot as the player would (published on the next tick).
    func update(_ change: (inout PlayerSnapshot) -> Void) { state.withLock { change(&$0.snapshot) } }

    func stop() {
        running.store(false, ordering: .relaxed)
        finished.wait()
        hub.close()
    }

    /// Runs `requests` as a tick does: each command on the snapshot, published before the reply.
    func run(_ requests: [RemoteHub.Request]) {
        for request in requests {
            let (result, snapshot) = state.withLock { s in
                s.commands.append(request.command)
                return (Self.apply(request.command, to: &s.snapshot), s.snapshot)
            }
            hub.publish(snapshot)
            request.reply(result)
        }
    }

    private func tick() {
        let requests: [RemoteHub.Request] = state.withLock { $0.holding ? [] : hub.takeRequests() }
        run(requests)
        hub.publish(state.withLock { $0.snapshot })
    }

    private static func apply(_ command: PlayerCommand, to s: inout PlayerSnapshot) -> CommandResult {
        switch command {
        case .set("pause", let v):
            guard let b = v.bool else { return .failure("not a flag") }
            s.status = b ? .paused : .playing
        case .set("volume", let v):
            guard let n = v.number else { return .failure("not a number") }
            s.audio.volume = n
        case .add("volume", let d): s.audio.volume += d
        case .cycle("pause", _): s.status = s.status == .playing ? .paused : .playing
        case .seek(let t, .absolute, _): s.position = t
        case .seek(let t, .relative, _): s.position += t
        case .quit: break
        default: return .failure("not supported by the fake host")
        }
        return .ok
    }
}

extension IPCTestClient {
    /// Returns once the server has read, and acted on, all that any client sent it before the
    /// call (with a held host, what it then submitted is in the hub): two round trips on this
    /// connection. Each pass of the server's loop reads every client with input, so the
    /// second request is read a pass after all that was there to read with the first. False
    /// when the server did not answer.
    func serverCaughtUp() -> Bool {
        (0..<2).allSatisfy { _ in request(#"{"command":["client_name"]}"#) != nil }
    }
}

/// A private directory for sockets, short enough for sun_path, removed afterwards.
struct SocketDirectory: ~Copyable {
    let path: String
    init() {
        var template = Array("/tmp/aether-ipc-test-XXXXXX".utf8CString)
        _ = mkdtemp(&template)
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    func file(_ name: String) -> String { path + "/" + name }
    /// Names in the directory (a leftover private staging directory would show here).
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The sockets this process holds open, by inode ("socket:[N]" in /proc/self/fd). Counted by
/// identity, not by number: the unit tier runs other suites at the same time, opening and
/// closing descriptors of their own.
private func openSockets() -> Set<String> {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return Set(names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
        .filter { $0.hasPrefix("socket:[") })
}

/// The sockets bound to a path in `directory` (/proc/net/unix: a listening socket and every
/// connection it accepted carry the path it was bound to, here a staging name in the directory
/// before the rename), as "socket:[N]".
private func socketsBound(in directory: String) -> Set<String> {
    let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
    return Set(table.split(separator: "\n").dropFirst().compactMap { line -> String? in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8, fields[7].hasPrefix(directory + "/") else { return nil }
        return "socket:[\(fields[6])]"
    })
}

private func statOf(_ path: String) -> stat? {
    var st = stat()
    return lstat(path, &st) == 0 ? st : nil
}

@Suite(.serialized) struct IPCServerTests {
    @Test func socketIsPrivateAndGoesAwayOnStop() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        // Reading /proc/self/fd races with other suites opening and closing descriptors (one
        // may be missed by a read), so each side is read more than once.
        let before = openSockets().union(openSockets()).union(openSockets())
        let server = try IPCServer(path: dir.file("mpv.sock"), hub: host.hub, time: .monotonic)
        // The listening socket and the wake-up pair; when another suite opened a socket in the
        // same moment, only the sockets named by the path below are checked.
        let made = openSockets().intersection(openSockets()).subtracting(before)
        let st = try #require(statOf(dir.file("mpv.sock")))
        #expect(st.st_mode & S_IFMT == S_IFSOCK)
        #expect(st.st_mode & 0o7777 == 0o600)
        #expect(dir.entries == ["mpv.sock"])  // no staging directory left behind
        let client = try IPCTestClient(path: dir.file("mpv.sock"))
        #expect(client.request(#"{"command":["client_name"]}"#)?["data"] as? String == "ipc-1")
        let named = socketsBound(in: dir.path)
        #expect(named.count == 2, "the listening socket and the client's connection: \(named)")
        server.stop()
        // Stopped means joined: the socket file is gone, the client sees the end, every
        // descriptor the server had is closed.
        #expect(statOf(dir.file("mpv.sock")) == nil)
        #expect(client.closedByServer(timeout: 1))
        let servers = named.union(made.count == 3 ? made : [])
        #expect(openSockets().isDisjoint(with: servers), "still open: \(openSockets().intersection(servers)) of \(servers)")
        #expect(throws: IPCTestClient.ConnectError.self) { try IPCTestClient(path: dir.file("mpv.sock"), timeout: 0) }
        server.stop()  // twice is fine
    }

    @Test func staleSocketIsReplacedOtherFilesAreNot() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        // A stale socket: bound, then its owner went away without removing it.
        let stale = try IPCServer(path: dir.file("stale.sock"), hub: host.hub, time: .monotonic)
        let staleIdentity = try #require(statOf(dir.file("stale.sock"))).st_ino
        let server = try IPCServer(path: dir.file("stale.sock"), hub: host.hub, time: .monotonic)
        #expect(try #require(statOf(dir.file("stale.sock"))).st_ino != staleIdentity)
        // The old server's stop leaves the new socket alone (it is no longer its own).
        stale.stop()
        #expect(statOf(dir.file("stale.sock")) != nil)
        let client = try IPCTestClient(path: dir.file("stale.sock"))
        #expect(client.request(#"{"command":["get_property","pause"]}"#)?["data"] as? Bool == false)
        server.stop()

        FileManager.default.createFile(atPath: dir.file("notes.txt"), contents: Data("keep".utf8))
        #expect(throws: IPCServerError("\(dir.file("notes.txt")): exists and is not a socket; not replacing it")) {
            try IPCServer(path: dir.file("notes.txt"), hub: host.hub, time: .monotonic)
        }
        #expect(FileManager.default.contents(atPath: dir.file("notes.txt")) == Data("keep".utf8))
        #expect(dir.entries == ["notes.txt"])
    }

    @Test func startupFailuresBecomeOneWarningLine() {
        let dir = SocketDirectory()
        let services = RemoteServices(hub: RemoteHub(), clock: .monotonic)
        var options = RemoteServices.Options()
        options.mpris = false
        options.ipcServerPath = dir.file("missing/mpv.sock")
        #expect(services.start(options) == ["--input-ipc-server: \(dir.path)/missing: No such file or directory (mkdtemp)"])
        let long = dir.path + "/" + String(repeating: "x", count: 120)
        options.ipcServerPath = long
        #expect(services.start(options) == ["--input-ipc-server: \(long): too long for a Unix socket (\(long.utf8.count) bytes, at most 107)"])
        services.stop()
        #expect(dir.entries.isEmpty)
    }

    @Test func remoteServicesRunTheSocketUntilStopped() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        let services = RemoteServices(hub: host.hub, clock: .monotonic)
        var options = RemoteServices.Options()
        options.mpris = false
        options.ipcServerPath = dir.file("s")
        #expect(services.start(options) == [])
        let client = try IPCTestClient(path: dir.file("s"))
        #expect(client.request(#"{"command":["get_property","filename"],"request_id":3}"#)?["data"] as? String == "clip.mkv")
        services.stop()
        #expect(statOf(dir.file("s")) == nil)
    }

    @Test func getSetAndObserveProperties() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, time: .monotonic)
        defer { server.stop() }
        let client = try IPCTestClient(path: dir.file("s"))

        #expect(client.request(#"{"command":["get_property","pause"],"request_id":1}"#) as NSDictionary?
                == ["data": false, "request_id": 1, "error": "success"])
        #expect(client.request(#"{"command":["get_property","time-pos"]}"#) as NSDictionary?
                == ["data": 1.0, "request_id": 0, "error": "success"])
        #expect(client.request(#"{"command":["get_property_string","volume"]}"#)?["data"] as? String == "100.000000")
        #expect(client.request(#"{"command":["get_property_string","aid"]}"#)?["data"] as? String == "1")
        #expect(client.request(#"{"command":["get_property","media-title"]}"#)?["data"] as? String == "Clip")

        // observe_property answers, then sends the current value at once.
        #expect(client.request(#"{"command":["observe_property",7,"pause"],"request_id":2}"#) as NSDictionary?
                == ["request_id": 2, "error": "success"])
        let first = client.waitForEvent { $0["event"] as? String == "property-change" }
        #expect(first as NSDictionary? == ["event": "property-change", "id": 7, "name": "pause", "data": false])

        #expect(client.request(#"{"command":["set_property","pause",true],"request_id":"p"}"#) as NSDictionary?
                == ["request_id": "p", "error": "success"])
        #expect(host.commands.last == .set("pause", .bool(true)))
        let change = client.waitForEvent { $0["name"] as? String == "pause" }
        #expect(change?["data"] as? Bool == true)
        #expect(client.request(#"{"command":["get_property","pause"]}"#)?["data"] as? Bool == true)

        // Commands go through the hub; their numbers arrive as mpv's words.
        #expect(client.request(#"{"command":["set","volume",50]}"#) as NSDictionary?
                == ["data": NSNull(), "request_id": 0, "error": "success"])
        #expect(host.commands.last == .set("volume", .number(50)))
        #expect(client.request(#"{"command":["seek",5,"absolute"]}"#)?["error"] as? String == "success")
        #expect(host.commands.last == .seek(5, .absolute, .auto))
        #expect(client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double == 5)
        #expect(client.request(#"{"command":["cycle","pause"]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent { $0["name"] as? String == "pause" }?["data"] as? Bool == false)

        // A command the host refuses is an error running it; a property it refuses, an access error.
        #expect(client.request(#"{"command":["playlist-next"]}"#)?["error"] as? String == "error running command")
        #expect(client.request(#"{"command":["set_property","volume","loud"]}"#)?["error"] as? String == "error accessing property")

        #expect(client.request(#"{"command":["unobserve_property",7]}"#)?["error"] as? String == "success")
        #expect(client.request(#"{"command":["cycle","pause"]}"#)?["error"] as? String == "success")
        #expect(client.request(#"{"command":["get_property","pause"]}"#)?["data"] as? Bool == true)
        #expect(!client.events.contains { $0["name"] as? String == "pause" && $0["data"] as? Bool == true })
    }

    @Test func errorsAreMpvsAndNeverFatal() throws {
        let dir = SocketDirectory()
        var s = IPCFakeHost.playing
        s.duration = nil
        let host = IPCFakeHost(s)
        defer { host.stop() }
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, time: .monotonic)
        defer { server.stop() }
        let client = try IPCTestClient(path: dir.file("s"))

        func error(_ line: String) -> String? { client.request(line)?["error"] as? String }
        #expect(error(#"{"command":["get_property","nonsense"]}"#) == "property not found")
        #expect(error(#"{"command":["get_property","duration"]}"#) == "property unavailable")
        #expect(error(#"{"command":["get_property"]}"#) == "invalid parameter")
        #expect(error(#"{"command":["get_property",5]}"#) == "invalid parameter")
        #expect(error(#"{"command":["set_property","duration",3]}"#) == "error accessing property")
        #expect(error(#"{"command":["set_property","nonsense",3]}"#) == "property not found")
        #expect(error(#"{"command":["set_property","volume",[1]]}"#) == "unsupported format for accessing property")
        #expect(error(#"{"command":["observe_property","one","pause"]}"#) == "invalid parameter")
        #expect(error(#"{"command":["frobnicate"]}"#) == "invalid parameter")
        #expect(error(#"{"command":["seek","ten"]}"#) == "invalid parameter")
        #expect(error(#"{"command":["seek",null]}"#) == "invalid parameter")
        #expect(error(#"{"command":"seek 10"}"#) == "invalid parameter")
        #expect(error(#"{"command":[]}"#) == "invalid parameter")
        #expect(error(#"{"command":[5]}"#) == "invalid parameter")
        #expect(error(#"{"request_id":4}"#) == "invalid parameter")
        #expect(error(#"{"command":["get_property","pause"],"async":"yes"}"#) == "invalid parameter")
        #expect(client.request(#"{"command":["nonsense"],"request_id":[1,{"a":null}]}"#) as NSDictionary?
                == ["request_id": [1, ["a": NSNull()]], "error": "invalid parameter"])

        // Not JSON at all, or JSON that is not an object: an error with request_id 0.
        for bad in [#"{"command":["get_property","pause"]"#, "{nope}", #"{"command":["seek",1e999]}"#,
                    #"{"command":["seek",5]} trailing"#, String(repeating: "{\"a\":", count: 60) + "1" + String(repeating: "}", count: 60)] {
            #expect(client.request(bad) as NSDictionary? == ["request_id": 0, "error": "invalid parameter"], "\(bad.prefix(40))")
        }
        // Bad UTF-8 inside a string, and a million brackets (deep nesting must not exhaust the stack).
        client.send(bytes: Array(#"{"command":["get_property",""#.utf8) + [0xC3, 0x28] + Array(#""]}"#.utf8) + [0x0A])
        #expect(client.nextReply()?["error"] as? String == "invalid parameter")
        client.send("{\"command\":" + String(repeating: "[", count: 1_000_000))
        #expect(client.nextReply()?["error"] as? String == "invalid parameter")
        // The connection still works.
        #expect(client.request(#"{"command":["get_property","volume"],"request_id":9}"#) as NSDictionary?
                == ["data": 100.0, "request_id": 9, "error": "success"])
        #expect(client.request(#"{"command":["get_version"]}"#)?["data"] as? Int == 131072)
    }

    @Test func textCommandsRunWithoutReplyAndInOrder() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, time: .monotonic)
        defer { server.stop() }
        let client = try IPCTestClient(path: dir.file("s"))
        let other = try IPCTestClient(path: dir.file("s"))
        // A busy host: each line still waits for the one before, as in mpv. While the host holds
        // the first command, the rest wait in the server, not in the hub, and the read at the
        // end is not answered from the snapshot before the commands ahead of it have run.
        host.hold()
        client.send(bytes: Array("# a comment\n\n  cycle pause\nsek 10\nno-osd seek 3 absolute\r\n".utf8)
                    + Array(#"{"command":["get_property","time-pos"],"request_id":1}"#.utf8) + [0x0A])
        #expect(other.serverCaughtUp())
        let first = host.hub.takeRequests()
        #expect(first.map(\.command) == [.cycle("pause", up: true)], "the later lines did not wait for the first")
        host.run(first)
        host.resume()
        let reply = client.nextReply()
        #expect(reply as NSDictionary? == ["data": 3.0, "request_id": 1, "error": "success"])
        #expect(host.commands == [.cycle("pause", up: true), .seek(3, .absolute, .auto)])
        // The request after a command the host is busy with is answered after it.
        host.hold()
        client.send(#"{"command":["seek",1],"request_id":2}"#)
        client.send(#"{"command":["get_property","time-pos"],"request_id":3}"#)
        #expect(other.serverCaughtUp())
        let seek = host.hub.takeRequests()
        #expect(seek.map(\.command) == [.seek(1, .relative, .auto)])
        host.run(seek)
        host.resume()
        #expect(client.nextReply()?["request_id"] as? Int == 2)
        let after = client.nextReply()
        #expect(after?["request_id"] as? Int == 3)
        #expect(after?["data"] as? Double == 4)
    }

    @Test func everyClientGetsEventsAndItsOwnObservations() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, time: .monotonic)
        defer { server.stop() }
        let a = try IPCTestClient(path: dir.file("s"))
        let b = try IPCTestClient(path: dir.file("s"))
        #expect(a.request(#"{"command":["client_name"]}"#)?["data"] as? String == "ipc-1")
        #expect(b.request(#"{"command":["client_name"]}"#)?["data"] as? String == "ipc-2")
        #expect(a.request(#"{"command":["observe_property",1,"volume"]}"#)?["error"] as? String == "success")
        #expect(b.request(#"{"command":["observe_property_string",2,"volume"]}"#)?["error"] as? String == "success")
        #expect(a.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Double == 100)
        #expect(b.waitForEvent { $0["id"] as? Int == 2 }?["data"] as? String == "100.000000")
        host.update { $0.audio.volume = 40 }
        #expect(a.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Double == 40)
        #expect(b.waitForEvent { $0["id"] as? Int == 2 }?["data"] as? String == "40.000000")

        host.hub.emit(.seeked(position: 3))
        host.hub.emit(.endFile(reason: "eof"))
        host.hub.emit(.fileLoaded)
        for c in [a, b] {
            #expect(c.waitForEvent { $0["event"] as? String == "seek" } != nil)
            #expect(c.waitForEvent { $0["event"] as? String == "end-file" }?["reason"] as? String == "eof")
            #expect(c.waitForEvent { $0["event"] as? String == "file-loaded" } != nil)
        }
        // A client that leaves does not disturb the other.
        a.shutdownWrite()
        #expect(a.closedByServer())
        #expect(b.request(#"{"command":["get_property","volume"]}"#)?["data"] as? Double == 40)
        host.hub.close()
        #expect(b.waitForEvent { $0["event"] as? String == "shutdown" } != nil)
    }

    @Test func aClientThatStopsSendingIsAnsweredThenClosed() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, time: .monotonic)
        defer { server.stop() }
        // As `echo '…' | socat - PATH` does: send, half-close, read the answer.
        let client = try IPCTestClient(path: dir.file("s"))
        client.send(bytes: Array(#"{"command":["set_property","pause",true]}"#.utf8) + [0x0A]
                    + Array(#"{"command":["get_property","pause"]}"#.utf8))  // no final newline
        client.shutdownWrite()
        #expect(client.readObject()?["error"] as? String == "success")
        #expect(client.readObject()?["data"] as? Bool == true)
        #expect(client.closedByServer())
    }

    @Test func limitsDropTheClientNotTheServer() throws {
        let dir = SocketDirectory()
        let host = IPCFakeHost()
        defer { host.stop() }
        var limits = IPCServer.Limits()
        limits.clients = 2
        limits.lineBytes = 1000
        limits.pendingOutputBytes = 4096
        let server = try IPCServer(path: dir.file("s"), hub: host.hub, limits: limits, time: .monotonic)
        defer { server.stop() }
        let a = try IPCTestClient(path: dir.file("s"))
        let b = try IPCTestClient(path: dir.file("s"))
        #expect(b.request(#"{"command":["client_name"]}"#)?["data"] as? String == "ipc-2")
        let third = try IPCTestClient(path: dir.file("s"))
        #expect(third.closedByServer())

        // A line past the limit, even without its newline yet.
        a.send(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 1500))
        #expect(a.closedByServer())
        // A client that never reads while its events pile up past the limit.
        #expect(b.request(#"{"command":["observe_property",1,"time-pos"]}"#)?["error"] as? String == "success")
        for i in 0..<20_000 {
            var s = IPCFakeHost.playing
            s.position = Double(i) / 1000
            host.hub.publish(s)
        }
        #expect(b.closedByServer(timeout: 10))
        // Room again for a new client, which is served.
        let c = try IPCTestClient(path: dir.file("s"))
        #expect(c.request(#"{"command":["get_property","pause"]}"#)?["error"] as? String == "success")
    }
}

@Suite struct JSONValueTests {
    @Test func parsesWhatJSONAllowsAndKeepsTypesApart() throws {
        let v = try JSONValue.parse(Array(#" {"a":[1,-0,2.5,-1e3,true,false,null,"\u00e9\ud83d\ude00\n"],"a":2, "big":18446744073709551616} "#.utf8))
        #expect(v == .object([("a", .array([.int(1), .int(0), .double(2.5), .double(-1000), .bool(true), .bool(false), .null,
                                            .string("é😀\n")])),
                              ("big", .double(18446744073709551616))]))
        #expect(try JSONValue.parse(Array("9223372036854775807".utf8)) == .int(.max))
        #expect(try JSONValue.parse(Array("\"\u{10FFFF}\"".utf8)) == .string("\u{10FFFF}"))
    }

    @Test func refusesWhatJSONDoesNot() {
        let bad: [[UInt8]] = [
            Array("".utf8), Array("01".utf8), Array("1.".utf8), Array(".5".utf8), Array("+1".utf8), Array("1e".utf8),
            Array("1e400".utf8), Array("-1e400".utf8), Array("NaN".utf8), Array("[1,]".utf8), Array("{\"a\"}".utf8),
            Array("{'a':1}".utf8), Array("\"\\ud800\"".utf8), Array("\"\\udc00\"".utf8), Array("\"\\x\"".utf8),
            Array("\"a\tb\"".utf8), Array("\"open".utf8), Array("tru".utf8), Array("[] []".utf8),
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xFF, 0x22],
            Array(String(repeating: "[", count: 51).utf8) + Array(String(repeating: "]", count: 51).utf8),
        ]
        for bytes in bad {
            #expect(throws: JSONValue.ParseError.self, "\(String(decoding: bytes, as: UTF8.self))") { try JSONValue.parse(bytes) }
        }
        #expect((try? JSONValue.parse(Array((String(repeating: "[", count: 50) + String(repeating: "]", count: 50)).utf8))) != nil)
    }

    @Test func writesOneLineOfJSON() throws {
        let v = JSONValue.object([("s", .string("a\"b\\c\nd\u{01}é")), ("n", .double(0.1)), ("i", .int(-3)),
                                  ("inf", .double(.infinity)), ("l", .array([.null, .bool(true)]))])
        #expect(v.serialized == #"{"s":"a\"b\\c\nd\u0001é","n":0.1,"i":-3,"inf":null,"l":[null,true]}"#)
        let back = try JSONValue.parse(Array(v.serialized.utf8))
        #expect(back["s"] == .string("a\"b\\c\nd\u{01}é"))
        #expect(JSONValue.double(5).serialized == "5.0")
    }
}
