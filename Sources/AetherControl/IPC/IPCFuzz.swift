import AetherCommands
import AetherBase

/// The IPC protocol without a socket, for the `ipc` libFuzzer target (and its replayed
/// regression files): the bytes are a client's stream, split into lines as the server splits
/// them (each within the server's line budget), and every line goes through a session exactly
/// as the server runs it — the JSON reader, `PlayerCommand.parse` on the command's words or on a
/// text line, replies to the commands it would submit and the events it would send. Checks on
/// the way (a violated one traps, which the fuzzer reports): every JSON value read writes out
/// as JSON that reads back as the same value, every line sent is one line.
public enum IPCFuzz {
    public static func run(_ bytes: [UInt8], lineBytes: Int = IPCServer.Limits().lineBytes) {
        // A clock that stands still: a replayed file takes the same path every time.
        var session = IPCSession(name: "ipc-fuzz", time: ManualTimeSource().source)
        var snapshot = PlayerSnapshot()
        snapshot.duration = 60
        snapshot.item.path = "/fuzz/file.mkv"
        snapshot.queue.count = 3
        snapshot.queue.position = 1
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = bytes[start..<end]
            start = end + 1
            guard line.count <= lineBytes else { continue }
            if let value = try? JSONValue.parse(line) {
                let text = value.serialized
                precondition(!text.utf8.contains(0x0A), "a serialized value holds a newline")
                // Non-finite doubles cannot be read, so none is ever produced by the reader.
                precondition((try? JSONValue.parse(Array(text.utf8))) == value, "JSON does not round-trip: \(text)")
            }
            for action in session.handle(line: line, snapshot: { snapshot }) {
                switch action {
                case .send(let text):
                    precondition(!text.utf8.contains(0x0A), "a reply holds a newline")
                case .run(_, let pending):
                    if let pending {
                        for result in [CommandResult.ok, .success(.number(.infinity)), .success(.string("x\ny")), .failure("no")] {
                            let reply = IPCSession.reply(to: pending, result: result)
                            precondition(!reply.utf8.contains(0x0A), "a reply holds a newline")
                        }
                    }
                }
            }
        }
        for event in [PlayerEvent.propertyChanged(name: "volume", value: .number(.nan)), .seeked(position: 1e308),
                      .fileLoaded, .endFile(reason: "eof"), .shutdown] {
            for line in session.lines(for: event) { precondition(!line.utf8.contains(0x0A), "an event holds a newline") }
        }
    }
}
