import AetherCommands
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One IPC client's side of mpv's JSON protocol, with no socket: lines in, reply and event lines
/// and player commands out. The server owns one per connection and runs it on its thread.
///
/// A line whose first non-blank character is `{` is a JSON request,
/// `{"command": ["name", args…], "request_id": N}`; it is answered with one line,
/// `{"data": …, "request_id": N, "error": "success"}` (`request_id` echoed as sent, 0 when
/// absent; no `data` on failure or for commands that return nothing). Any other line is a
/// command in input.conf syntax (`cycle pause`), run with no reply; blank lines and `#` comments
/// are skipped. All as mpv's `input/ipc.c` does.
struct IPCSession {
    /// mpv's error strings (`mpv_error_string`), the ones this server sends.
    enum Status: String, Sendable {
        case success
        case invalidParameter = "invalid parameter"
        case propertyNotFound = "property not found"
        case propertyUnavailable = "property unavailable"
        case propertyFormat = "unsupported format for accessing property"
        case propertyError = "error accessing property"
        case commandError = "error running command"
        /// Not mpv's: a line past the server's budget (the connection then closes).
        case lineTooLong = "line too long"
    }

    /// What a request needs from the server.
    enum Action: Equatable {
        /// Send this line (the newline is added by the server).
        case send(String)
        /// Submit `command` to the player; when the host has run it, answer with
        /// ``reply(to:result:)`` (nil: a text command, which gets no answer). The session takes
        /// no further line until then, so replies keep the order of the requests, as in mpv.
        case run(PlayerCommand, Pending?)
    }

    /// A request waiting for the host's result.
    struct Pending: Sendable, Equatable {
        let requestID: JSONValue
        /// `set_property` reports a failure as a property error, other commands as a command error.
        let isSetProperty: Bool
    }

    /// mpv's `client_name`: `ipc-N`.
    let name: String

    /// `observe_property` registrations, in the order made.
    private var observations: [Observation] = []

    private struct Observation {
        let id: Int64
        let property: String
        let asString: Bool
        /// The data of the last event sent, so an unchanged value is not sent twice.
        var lastSent: JSONValue?
    }

    /// What `get_time_us` answers from.
    private let time: TimeSource

    init(name: String, time: TimeSource) {
        self.name = name
        self.time = time
    }

    /// `observe_property` registrations one client may hold (mpv scripts use a few dozen).
    static let maxObservations = 1000

    /// The API version `get_version` answers: mpv's `MPV_CLIENT_API_VERSION` 2.0, whose IPC
    /// subset this is.
    static let clientAPIVersion: Int64 = 2 << 16

    /// Properties mpv types as integers (the rest of the numbers are doubles).
    static let integerProperties: Set<String> = ["aid", "sid", "vid", "playlist-pos", "playlist-count", "chapter", "chapters",
                                                 "width", "height", "dwidth", "dheight", "file-size"]

    // MARK: requests

    /// Handles one line (without its newline). `snapshot` is read only by requests that need it.
    mutating func handle<Line: Collection<UInt8>>(line: Line, snapshot: () -> PlayerSnapshot) -> [Action] {
        var rest = line[...]
        while let b = rest.first, b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A { rest = rest.dropFirst() }
        guard let first = rest.first, first != UInt8(ascii: "#") else { return [] }
        if first != UInt8(ascii: "{") { return textCommand(rest) }

        let message: JSONValue
        do {
            message = try JSONValue.parse(rest)
        } catch {
            return [.send(Self.reply(requestID: .int(0), status: .invalidParameter))]
        }
        guard case .object = message else {
            return [.send(Self.reply(requestID: .int(0), status: .invalidParameter))]
        }
        let requestID = message["request_id"] ?? .int(0)
        func fail(_ status: Status) -> [Action] { [.send(Self.reply(requestID: requestID, status: status))] }
        func succeed(_ data: JSONValue?) -> [Action] {
            [.send(Self.reply(requestID: requestID, status: .success, data: data))]
        }
        // mpv's "async" flag must be a boolean; every command here answers when done anyway.
        if let async = message["async"] {
            guard case .bool = async else { return fail(.invalidParameter) }
        }
        guard case .array(let command)? = message["command"], case .string(let name)? = command.first else {
            return fail(.invalidParameter)
        }
        let args = Array(command.dropFirst())
        func stringArg(_ i: Int) -> String? {
            guard args.indices.contains(i), case .string(let s) = args[i] else { return nil }
            return s
        }
        func intArg(_ i: Int) -> Int64? {
            guard args.indices.contains(i), case .int(let n) = args[i] else { return nil }
            return n
        }

        switch name {
        case "client_name":
            return succeed(.string(self.name))
        case "get_version":
            return succeed(.int(Self.clientAPIVersion))
        case "get_time_us":
            return succeed(.int(Int64(saturating: (time.seconds * 1_000_000).rounded(.down))))
        case "get_property", "get_property_string":
            guard args.count == 1, let property = stringArg(0) else { return fail(.invalidParameter) }
            switch snapshot().property(property) {
            case nil: return fail(.propertyNotFound)
            case .none?: return fail(.propertyUnavailable)
            case let value?:
                return succeed(name == "get_property" ? Self.json(value, property: property)
                                                      : .string(Self.text(value, property: property)))
            }
        case "set_property", "set_property_string":
            guard args.count == 2, let property = stringArg(0) else { return fail(.invalidParameter) }
            guard PlayerCommand.settable.contains(property) else {
                // mpv: a property it does not know is "not found", a read-only one an access error.
                return fail(PlayerSnapshot.propertyNames.contains(property) ? .propertyError : .propertyNotFound)
            }
            let value: PropertyValue
            switch (args[1], name) {
            case (.string(let s), _): value = PropertyValue(text: s)
            case (.bool(let b), "set_property"): value = .bool(b)
            case (.int(let n), "set_property"): value = .number(Double(n))
            case (.double(let d), "set_property"): value = .number(d)
            case (_, "set_property"): return fail(.propertyFormat)
            default: return fail(.invalidParameter)
            }
            return [.run(.set(property, value), Pending(requestID: requestID, isSetProperty: true))]
        case "observe_property", "observe_property_string":
            guard args.count == 2, let id = intArg(0), let property = stringArg(1) else { return fail(.invalidParameter) }
            // A budget on the work every event costs (each observation is looked at).
            guard observations.count < Self.maxObservations else { return fail(.invalidParameter) }
            var observation = Observation(id: id, property: property, asString: name == "observe_property_string")
            // The first event carries the current value, right after the reply.
            let event = Self.propertyChange(&observation, value: snapshot().property(property))
            observations.append(observation)
            return succeed(nil) + (event.map { [.send($0)] } ?? [])
        case "unobserve_property":
            guard args.count == 1, let id = intArg(0) else { return fail(.invalidParameter) }
            observations.removeAll { $0.id == id }
            return succeed(nil)
        default:
            // A player command: its arguments as mpv's text syntax spells them.
            var words: [String] = []
            for arg in command {
                switch arg {
                case .string(let s): words.append(s)
                case .int(let n): words.append(String(n))
                case .double(let d): words.append(d.description)
                case .bool(let b): words.append(b ? "yes" : "no")
                case .null, .array, .object: return fail(.invalidParameter)
                }
            }
            do {
                let parsed = try PlayerCommand.parse(words: words)
                return [.run(parsed, Pending(requestID: requestID, isSetProperty: false))]
            } catch {
                return fail(.invalidParameter)
            }
        }
    }

    /// Whether `line` (JSON or text) is a command that leaves the player (`quit`, `stop`).
    static func leaves(line: some Collection<UInt8>) -> Bool {
        var rest = line[...]
        while let b = rest.first, b == 0x20 || b == 0x09 || b == 0x0D { rest = rest.dropFirst() }
        guard let first = rest.first else { return false }
        if first == UInt8(ascii: "{") {
            guard let message = try? JSONValue.parse(rest), case .array(let command)? = message["command"],
                  case .string(let name)? = command.first else { return false }
            // The command's name is enough: `quit`'s code does not change that it leaves.
            return (try? PlayerCommand.parse(words: [name]))?.leavesThePlayer ?? false
        }
        guard let text = String(validating: rest, as: UTF8.self) else { return false }
        return (try? PlayerCommand.parse(text))?.leavesThePlayer ?? false
    }

    /// A line in input.conf syntax: run when it parses, never answered (mpv only logs a bad one).
    private func textCommand(_ bytes: some Collection<UInt8>) -> [Action] {
        guard let line = String(validating: bytes, as: UTF8.self),
              let command = try? PlayerCommand.parse(line.trimmingWhitespaceAndNewlines()) else { return [] }
        return [.run(command, nil)]
    }

    /// The answer to a request the host has run.
    static func reply(to pending: Pending, result: CommandResult) -> String {
        switch result {
        case .success(let value):
            return reply(requestID: pending.requestID, status: .success,
                         data: pending.isSetProperty ? nil : json(value, property: nil))
        case .failure:
            return reply(requestID: pending.requestID, status: pending.isSetProperty ? .propertyError : .commandError)
        }
    }

    // MARK: events

    /// The lines `event` sends to this client: mpv's `property-change` for each observation of
    /// a changed property, or the event by mpv's name.
    mutating func lines(for event: PlayerEvent) -> [String] {
        switch event {
        case .propertyChanged(let name, let value):
            var out: [String] = []
            for i in observations.indices where observations[i].property == name {
                if let line = Self.propertyChange(&observations[i], value: value) { out.append(line) }
            }
            return out
        case .seeked:
            return [JSONValue.object([("event", .string("seek"))]).serialized]
        case .fileLoaded:
            return [JSONValue.object([("event", .string("file-loaded"))]).serialized]
        case .metadataUpdate:
            return [JSONValue.object([("event", .string("metadata-update"))]).serialized]
        case .endFile(let reason):
            return [JSONValue.object([("event", .string("end-file")), ("reason", .string(reason))]).serialized]
        case .shutdown:
            return [JSONValue.object([("event", .string("shutdown"))]).serialized]
        }
    }

    /// A `property-change` event for `observation`, nil when it would repeat the last one.
    /// A property unknown or unavailable has `null` data, as in mpv.
    private static func propertyChange(_ observation: inout Observation, value: PropertyValue?) -> String? {
        let data: JSONValue
        switch value {
        case nil, .none?: data = .null
        case let v?: data = observation.asString ? .string(text(v, property: observation.property))
                                                 : json(v, property: observation.property)
        }
        guard observation.lastSent != data else { return nil }
        observation.lastSent = data
        return JSONValue.object([("event", .string("property-change")), ("id", .int(observation.id)),
                                 ("name", .string(observation.property)), ("data", data)]).serialized
    }

    // MARK: formatting

    static func reply(requestID: JSONValue, status: Status, data: JSONValue? = nil) -> String {
        var members: [(key: String, value: JSONValue)] = []
        if let data { members.append(("data", data)) }
        members.append(("request_id", requestID))
        members.append(("error", .string(status.rawValue)))
        return JSONValue.object(members).serialized
    }

    /// A property's value as `get_property` sends it: integer properties as integers, other
    /// numbers as doubles (a command's numeric result, `property` nil, as an integer when whole).
    static func json(_ value: PropertyValue, property: String?) -> JSONValue {
        switch value {
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .none: return .null
        case .number(let n):
            let whole = n.isFinite && n == n.rounded() && abs(n) < 9e15
            if whole, property.map(integerProperties.contains) ?? true { return .int(Int64(n)) }
            return .double(n)
        case .list(let items): return .array(items.map { json($0, property: nil) })
        case .map(let fields):
            return .object(fields.keys.sorted().map { key in (key: key, value: json(fields[key]!, property: nil)) })
        }
    }

    /// A property's value as `get_property_string` sends it: `yes`/`no`, integers as such, other
    /// numbers with six decimals (mpv's `50.000000`).
    static func text(_ value: PropertyValue, property: String) -> String {
        switch value {
        case .number(let n) where !integerProperties.contains(property) && n.isFinite:
            return String(cFormat: "%.6f", n)
        default:
            return value.description
        }
    }
}
