import AetherCommands
/// The writable properties, as mpv's property table: each entry names a property (and its
/// aliases) and says what `set`, `add`, `multiply` and `cycle` do to it through the controller;
/// an operation an entry leaves nil does not apply (the command says so). The families are in
/// PropertyTable+Playback (pause, volume, mute, speed), +Timing (the delays, time-pos,
/// percent-pos, chapter), +Tracks (aid, vid, sid, sub-visibility) and +Playlist (playlist-pos,
/// shuffle, the loops, stream-record). The properties one reads are
/// ``PlayerSnapshot/property(_:)``'s.
///
/// What each writable property does is here; which names are writable is also the command
/// parser's to know (``PlayerCommand/settable``, in AetherCommands, below this target), and
/// `PropertyTableTests.theParserAndTheTableKnowTheSameProperties` holds the two lists equal.
enum PropertyTable {
    /// One writable property. Each operation gets the controller, the name as the command gave
    /// it (an alias stays an alias in what is said) and its argument.
    struct Entry: Sendable {
        /// mpv's name first, then its aliases (`aid`, `audio`).
        let names: [String]
        /// `set <name> <value>`.
        let set: @Sendable (PlayerController, String, PropertyValue) -> CommandResult
        /// `add <name> <delta>` (a negative delta goes down).
        var add: (@Sendable (PlayerController, String, Double) -> CommandResult)? = nil
        /// `multiply <name> <factor>`.
        var multiply: (@Sendable (PlayerController, String, Double) -> CommandResult)? = nil
        /// `cycle <name> [up|down]`: true going up.
        var cycle: (@Sendable (PlayerController, String, Bool) -> CommandResult)? = nil
    }

    /// Every entry, family by family.
    static let all: [Entry] = playback + timing + tracks + playlist

    /// The entry `name` names (nil: no writable property of that name).
    static func entry(_ name: String) -> Entry? { byName[name] }

    private static let byName: [String: Entry] = {
        var table: [String: Entry] = [:]
        for entry in all {
            for name in entry.names {
                precondition(table[name] == nil, "two writable properties named '\(name)'")
                table[name] = entry
            }
        }
        return table
    }()

    /// `set <name> <value>` on `c`'s player.
    static func set(_ c: PlayerController, _ name: String, _ value: PropertyValue) -> CommandResult {
        guard let entry = entry(name) else { return .failure("unknown property '\(name)'") }
        return entry.set(c, name, value)
    }

    /// `add <name> <delta>`.
    static func add(_ c: PlayerController, _ name: String, _ delta: Double) -> CommandResult {
        guard let add = entry(name)?.add else { return .failure("cannot add to '\(name)'") }
        return add(c, name, delta)
    }

    /// `multiply <name> <factor>`.
    static func multiply(_ c: PlayerController, _ name: String, _ factor: Double) -> CommandResult {
        guard let multiply = entry(name)?.multiply else { return .failure("cannot multiply '\(name)'") }
        return multiply(c, name, factor)
    }

    /// `cycle <name> [up|down]`.
    static func cycle(_ c: PlayerController, _ name: String, up: Bool) -> CommandResult {
        guard let cycle = entry(name)?.cycle else { return .failure("cannot cycle '\(name)'") }
        return cycle(c, name, up)
    }
}
