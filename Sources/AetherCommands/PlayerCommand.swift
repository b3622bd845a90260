import AetherBase

/// A player command, parsed from mpv's command syntax: an `input.conf` line's command part
/// (`seek 10`, `cycle sub`, `add volume -2`), or a JSON IPC `command` array. Keys, the mouse,
/// media keys (MPRIS), the IPC socket and key bindings all end up here, and one place carries
/// each out (``PlayerController``).
public enum PlayerCommand: Sendable, Equatable {
    public enum SeekReference: String, Sendable { case relative, absolute, absolutePercent = "absolute-percent" }
    public enum LoadMode: String, Sendable { case replace, append, appendPlay = "append-play" }
    /// A `seek`'s `exact` or `keyframes` flag; `auto` (neither): `--hr-seek` decides.
    public enum SeekPrecision: String, Sendable { case auto, exact, keyframes }

    /// mpv's `seek <target> [relative|absolute|absolute-percent] [exact|keyframes]`.
    case seek(Double, SeekReference, SeekPrecision)
    case set(String, PropertyValue)
    /// `add <property> [value]` (default 1); `multiply <property> <factor>`.
    case add(String, Double)
    case multiply(String, Double)
    /// `cycle <property> [up|down]`.
    case cycle(String, up: Bool)
    case frameStep
    case frameBackStep
    /// `ab-loop`: A here, then B here, then clear (``ABLoop/press(at:)``).
    case abLoop
    case playlistNext
    case playlistPrevious
    /// `playlist-play-index <n>` (0-based).
    case playlistPlay(Int)
    case loadfile(String, LoadMode)
    /// `quit [code]`; `quit-watch-later` saves the position first.
    case quit(code: Int32, watchLater: Bool)
    /// Stops playback and clears the playlist (mpv's `stop`): the player leaves.
    case stop
    /// `screenshot [subtitles|video]`.
    case screenshot(subtitles: Bool)
    /// `show-text <text>`; `expand`: its `${…}` are properties (``PropertyExpansion``).
    case showText(String, expand: Bool)
    /// Commands only an interactive host has (the stats box, menus, scrub mode …), by name:
    /// `stats`, `help`, `telemetry`, `menu-audio`, `menu-sub`, `menu-playlist`, `cycle-vo`,
    /// `remaining`, `pin-osd`, `scrub`, `filmstrip`. Spelt in input.conf as
    /// `script-binding <name>` (mpv's `stats/display-stats` and `stats/display-stats-toggle` are
    /// `stats` and `stats-toggle`).
    case ui(UIAction)
    /// `ignore`: a binding that does nothing (unbinds a default key).
    case ignore
    /// mpv's `keypress <name>`: the host acts as if the key (input.conf's spelling) were pressed.
    case keypress(String)

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Parses one command line in mpv's syntax: words split on blanks, `"…"` quoting with `\`
    /// escapes; the prefixes `no-osd`, `osd-msg`, `osd-bar`, `osd-msg-bar` and `osd-auto` are
    /// accepted and ignored. A line's text arguments have their properties expanded (`${…}`,
    /// mpv's default for input.conf and text commands) unless it starts with `raw`.
    public static func parse(_ line: String) throws(ParseError) -> PlayerCommand {
        try parse(words: try split(line), expandingProperties: true)
    }

    /// Parses a command given as separate words (the JSON IPC's `command` array, already made
    /// strings): as in mpv, its text is taken as written unless it starts with `expand-properties`.
    public static func parse(words input: [String], expandingProperties: Bool = false) throws(ParseError) -> PlayerCommand {
        var words = input
        var expands = expandingProperties
        while let first = words.first, prefixes.contains(first) {
            if first == "raw" { expands = false } else if first == "expand-properties" { expands = true }
            words.removeFirst()
        }
        guard let name = words.first else { throw ParseError(message: "empty command") }
        let args = Array(words.dropFirst())
        func arg(_ i: Int) -> String? { args.indices.contains(i) ? args[i] : nil }
        func number(_ i: Int, default value: Double? = nil) throws(ParseError) -> Double {
            guard let text = arg(i) else {
                if let value { return value }
                throw ParseError(message: "'\(name)' needs a number")
            }
            // mpv accepts a fraction (`multiply speed 1/1.1`); NaN, infinities and 1 MB
            // "numbers" are refused here, ranges by each command.
            do { return try OutsideValue.number(text, name: name) } catch { throw ParseError(message: error.message) }
        }
        func integer(_ i: Int, in range: ClosedRange<Int>, default value: Int? = nil) throws(ParseError) -> Int {
            if arg(i) == nil, let value { return value }
            let n = try number(i)
            do { return try OutsideValue.integer(n, in: range, name: name) } catch { throw ParseError(message: error.message) }
        }
        func property(_ i: Int) throws(ParseError) -> String {
            guard let p = arg(i) else { throw ParseError(message: "'\(name)' needs a property") }
            guard settable.contains(p) else { throw ParseError(message: "'\(name)': unknown property '\(p)'") }
            return p
        }
        switch name {
        case "seek":
            let amount = try number(0)
            var reference = SeekReference.relative
            var precision = SeekPrecision.auto
            for flag in args.dropFirst() {
                for part in flag.split(separator: "+") {
                    switch part {
                    case "relative": reference = .relative
                    case "absolute": reference = .absolute
                    case "absolute-percent": reference = .absolutePercent
                    case "exact": precision = .exact
                    case "keyframes": precision = .keyframes
                    default: throw ParseError(message: "'seek': unknown flag '\(part)'")
                    }
                }
            }
            return .seek(amount, reference, precision)
        case "set":
            let p = try property(0)
            guard let value = arg(1) else { throw ParseError(message: "'set' needs a value") }
            return .set(p, PropertyValue(text: value))
        case "add": return .add(try property(0), try number(1, default: 1))
        case "multiply": return .multiply(try property(0), try number(1))
        case "cycle":
            let p = try property(0)
            switch arg(1) {
            case nil, "up": return .cycle(p, up: true)
            case "down": return .cycle(p, up: false)
            case let other?: throw ParseError(message: "'cycle': '\(other)' is not up or down")
            }
        case "frame-step": return .frameStep
        case "ab-loop": return .abLoop
        case "frame-back-step": return .frameBackStep
        case "playlist-next": return .playlistNext
        case "playlist-prev": return .playlistPrevious
        case "playlist-play-index":
            return .playlistPlay(try integer(0, in: -1...Int(Int32.max)))
        case "loadfile":
            guard let url = arg(0) else { throw ParseError(message: "'loadfile' needs a file or URL") }
            let mode = arg(1).map { LoadMode(rawValue: $0) } ?? .replace
            guard let mode else { throw ParseError(message: "'loadfile': unknown mode '\(arg(1)!)'") }
            return .loadfile(url, mode)
        case "quit", "quit-watch-later":
            // A process's exit status is one byte.
            return .quit(code: Int32(try integer(0, in: 0...255, default: 0)), watchLater: name == "quit-watch-later")
        case "stop": return .stop
        case "screenshot":
            switch arg(0) {
            case nil, "subtitles": return .screenshot(subtitles: true)
            case "video": return .screenshot(subtitles: false)
            case let other?: throw ParseError(message: "'screenshot': unknown flag '\(other)'")
            }
        case "show-text":
            guard let text = arg(0) else { throw ParseError(message: "'show-text' needs a text") }
            return .showText(text, expand: expands)
        case "script-binding":
            guard let target = arg(0) else { throw ParseError(message: "'script-binding' needs a name") }
            // mpv's stats script's bindings: `i` shows the overlay a while, `I` toggles it.
            let ui = ["stats/display-stats": "stats", "stats/display-stats-toggle": "stats-toggle"][target] ?? target
            guard let action = UIAction(rawValue: ui) else { throw ParseError(message: "'script-binding': unknown binding '\(target)'") }
            return .ui(action)
        case "ignore": return .ignore
        case "keypress":
            guard let key = arg(0), !key.isEmpty else { throw ParseError(message: "'keypress' needs a key name") }
            return .keypress(key)
        default:
            throw ParseError(message: "unknown command '\(name)'")
        }
    }

    /// `quit`, `quit-watch-later` and `stop`: the commands that must act even while a source
    /// is opening.
    public var leavesThePlayer: Bool {
        switch self {
        case .quit, .stop: return true
        default: return false
        }
    }

    static let prefixes: Set<String> = ["no-osd", "osd-msg", "osd-bar", "osd-msg-bar", "osd-auto", "raw", "expand-properties"]

    /// Properties `set`, `add`, `multiply` and `cycle` accept.
    public static let settable: Set<String> = [
        "pause", "volume", "mute", "speed", "aid", "sid", "vid", "audio", "sub", "video", "sub-delay", "audio-delay",
        "sub-visibility", "chapter", "time-pos", "percent-pos", "playlist-pos", "loop-file", "loop-playlist", "shuffle", "stream-record",
        "ab-loop-a", "ab-loop-b", "ab-loop-count", "equalizer",
    ]


    /// Splits mpv's command syntax into words.
    static func split(_ line: String) throws(ParseError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escape = false
        for ch in line {
            if escape {
                switch ch {
                case "n": current.append("\n")
                case "t": current.append("\t")
                default: current.append(ch)
                }
                escape = false
                continue
            }
            if quoted {
                if ch == "\\" { escape = true } else if ch == "\"" { quoted = false } else { current.append(ch) }
                continue
            }
            switch ch {
            case "\"":
                quoted = true
                inWord = true
            case " ", "\t":
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            case "#" where !inWord:
                // A comment after the command.
                if inWord { words.append(current) }
                return words
            default:
                current.append(ch)
                inWord = true
            }
        }
        if quoted || escape { throw ParseError(message: "unterminated quote") }
        if inWord { words.append(current) }
        return words
    }
}

/// What only a player with a screen does (`script-binding NAME`; the TUI's keys bind them): the
/// overlays, the menus, the video output, the modes. A host without a screen refuses them.
public enum UIAction: String, CaseIterable, Sendable {
    case stats, statsToggle = "stats-toggle", help, telemetry
    case menuAudio = "menu-audio", menuSub = "menu-sub", menuPlaylist = "menu-playlist"
    case cycleVO = "cycle-vo", remaining, pinOSD = "pin-osd", scrub, filmstrip, inspector, equalizer
}
