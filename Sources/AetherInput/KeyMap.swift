import AetherCommands
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// A key the user can press, in terminal-neutral form.
public enum Key: Hashable, Sendable {
    case character(Character)
    case left, right, up, down, shiftLeft, shiftRight, pageUp, pageDown, shiftPageUp, shiftPageDown, backspace, escape, enter, home, end
    case tab, delete, insert
    /// F1…F12.
    case function(Int)
    /// Ctrl plus a letter or a symbol (`Ctrl+x`, `Ctrl+-`, `Ctrl++`).
    case control(Character)

    /// The key named `name` as input.conf (or IPC `keypress`) writes it; nil for a name that is
    /// not a key or a key a terminal cannot send alone (`Alt+…`, `Shift+x`).
    public init?(mpvName name: String) {
        guard let canonical = KeyMap.canonicalName(name) else { return nil }
        if let key = Self.named[canonical] { self = key; return }
        if canonical.hasPrefix("Ctrl+"), canonical.count == 6, let c = canonical.last {
            self = .control(c)
            return
        }
        guard canonical.count == 1, let c = canonical.first else { return nil }
        self = .character(c)
    }

    /// The keys with a name of more than one character, by that name (``mpvName`` is its one home).
    private static let named: [String: Key] = {
        let keys: [Key] = [.character(" "), .character("#"), .left, .right, .up, .down, .shiftLeft, .shiftRight, .pageUp, .pageDown,
                           .shiftPageUp, .shiftPageDown,
                           .backspace, .escape, .enter, .home, .end, .tab, .delete, .insert] + (1...12).map { .function($0) }
        return Dictionary(uniqueKeysWithValues: keys.map { ($0.mpvName, $0) })
    }()

    /// The key's name in mpv's `input.conf` syntax, as ``KeyMap/canonicalName(_:)`` spells it.
    public var mpvName: String {
        switch self {
        case .character(" "): return "SPACE"
        case .character("#"): return "SHARP"
        case .character(let c): return String(c)
        case .left: return "LEFT"
        case .right: return "RIGHT"
        case .up: return "UP"
        case .down: return "DOWN"
        case .shiftLeft: return "Shift+LEFT"
        case .shiftRight: return "Shift+RIGHT"
        case .pageUp: return "PGUP"
        case .pageDown: return "PGDWN"
        case .shiftPageUp: return "Shift+PGUP"
        case .shiftPageDown: return "Shift+PGDWN"
        case .backspace: return "BS"
        case .escape: return "ESC"
        case .enter: return "ENTER"
        case .home: return "HOME"
        case .end: return "END"
        case .tab: return "TAB"
        case .delete: return "DEL"
        case .insert: return "INS"
        case .function(let n): return "F\(n)"
        case .control(let c): return "Ctrl+" + (c.isLetter ? String(c).lowercased() : String(c))
        }
    }
}

/// One default binding: the keys (mpv names), the command in mpv's syntax, and how the help
/// overlay and the man page show it (an empty `keys` merges the row into the one before).
public struct KeyBinding: Sendable {
    /// How the help overlay and the man page name the key(s).
    public let keys: String
    public let description: String
    public let triggers: [String]
    public let command: String
}

/// The default key bindings, written as an `input.conf` would write them: mpv's default keys
/// and commands where mpv has one, our own for what mpv lacks (`script-binding` names the
/// TUI's own panels). A user's `input.conf` is laid over them.
public enum KeyMap {
    static func b(_ keys: String, _ description: String, _ triggers: [String], _ command: String) -> KeyBinding {
        KeyBinding(keys: keys, description: description, triggers: triggers, command: command)
    }

    public static let bindings: [KeyBinding] = [
        b("space, p", "pause / play", ["SPACE", "p"], "cycle pause"),
        b("← →", "seek back / forward 5 seconds", ["LEFT"], "seek -5"),
        b("", "", ["RIGHT"], "seek 5"),
        b("↓ ↑", "seek back / forward 60 seconds", ["DOWN"], "seek -60"),
        b("", "", ["UP"], "seek 60"),
        b("Shift+← Shift+→", "seek back / forward 1 second, exactly", ["Shift+LEFT"], "seek -1 exact"),
        b("", "", ["Shift+RIGHT"], "seek 1 exact"),
        b("Shift+PgUp Shift+PgDn", "seek back / forward 10 minutes", ["Shift+PGUP"], "seek -600"),
        b("", "", ["Shift+PGDWN"], "seek 600"),
        b("PgUp PgDn, ! @", "previous / next chapter", ["PGUP", "!"], "add chapter -1"),
        b("", "", ["PGDWN", "@"], "add chapter 1"),
        b("[ ]", "speed −10 % / +10 %", ["["], "multiply speed 1/1.1"),
        b("", "", ["]"], "multiply speed 1.1"),
        b("{ }", "halve / double speed", ["{"], "multiply speed 0.5"),
        b("", "", ["}"], "multiply speed 2.0"),
        b("Backspace", "reset speed to 1×", ["BS"], "set speed 1.0"),
        b("9 0", "volume down / up", ["9", "/"], "add volume -2"),
        b("", "", ["0", "*"], "add volume 2"),
        b("m", "mute / unmute", ["m"], "cycle mute"),
        b("#", "next audio track", ["SHARP"], "cycle audio"),
        b("j J", "next / previous subtitle track", ["j"], "cycle sub"),
        b("", "", ["J"], "cycle sub down"),
        b("v", "subtitles on / off", ["v"], "cycle sub-visibility"),
        b("_", "next video track (then off)", ["_"], "cycle video"),
        b("z Z", "subtitle delay −0.1 / +0.1 seconds", ["z"], "add sub-delay -0.1"),
        b("", "", ["Z", "x"], "add sub-delay 0.1"),
        b("Ctrl+- Ctrl++", "audio delay −0.1 / +0.1 seconds", ["Ctrl+-"], "add audio-delay -0.100"),
        b("", "", ["Ctrl++"], "add audio-delay 0.100"),
        b(". ,", "step one frame forward / back (pauses)", ["."], "frame-step"),
        b("l", "A-B loop: set A, set B, clear", ["l"], "ab-loop"),
        b("", "", [","], "frame-back-step"),
        b("> <", "next / previous playlist item", [">", "ENTER"], "playlist-next"),
        b("", "", ["<"], "playlist-prev"),
        b("F8", "playlist menu", ["F8"], "script-binding menu-playlist"),
        b("a", "audio track menu", ["a"], "script-binding menu-audio"),
        b("c", "subtitle track menu", ["c"], "script-binding menu-sub"),
        b("i I", "stats overlay for four seconds / on and off (as mpv)", ["i"], "script-binding stats/display-stats"),
        b("", "", ["I"], "script-binding stats/display-stats-toggle"),
        b("T", "telemetry pane with sparklines", ["T"], "script-binding telemetry"),
        b("d", "next video output this terminal shows (\(VideoDrivers.all.filter { !$0.isHeadless }.map(\.name).joined(separator: " / ")))",
          ["d"], "script-binding cycle-vo"),
        b("r", "show remaining time instead of duration", ["r"], "script-binding remaining"),
        b("o", "pin the transport bar (no auto-hide)", ["o"], "script-binding pin-osd"),
        b("Home End", "jump to the start / the end (live: the oldest kept moment / back to live)", ["HOME"], "seek 0 absolute-percent"),
        b("", "", ["END"], "seek 100 absolute-percent"),
        b("b", "scrub with a preview (arrows move, Enter seeks, Esc leaves)", ["b"], "script-binding scrub"),
        b("B", "filmstrip around the position (pauses; ← → Enter Esc)", ["B"], "script-binding filmstrip"),
        b("s S", "screenshot (PNG at source size) with / without subtitles", ["s"], "screenshot"),
        b("", "", ["S"], "screenshot video"),
        b("e", "equalizer panel: ← → a band, ↑ ↓ its gain, p P presets, r flat, click a band (Esc)", ["e"], "script-binding equalizer"),
        b("`", "pipeline inspector: container, packets, frames, live queues (Tab, 1-4, Esc)", ["`"], "script-binding inspector"),
        b("?", "this help", ["?"], "script-binding help"),
        b("q", "quit", ["q"], "quit"),
        b("Q", "quit and remember the position (resumed next time)", ["Q"], "quit-watch-later"),
    ]

    /// The defaults, parsed (a binding that does not parse is a bug, caught by the tests).
    public static let defaults: [String: PlayerCommand] = {
        var t: [String: PlayerCommand] = [:]
        for binding in bindings {
            guard let command = try? PlayerCommand.parse(binding.command) else { continue }
            for key in binding.triggers { if let name = canonicalName(key) { t[name] = command } }
        }
        return t
    }()

    public static func command(for key: Key) -> PlayerCommand? { defaults[key.mpvName] }

    /// The rows the help overlay and the man page show (paired keys merged into one row).
    public static var helpRows: [(keys: String, description: String)] {
        bindings.filter { !$0.keys.isEmpty }.map { ($0.keys, $0.description) }
    }

    static let named: [String: String] = {
        var m: [String: String] = [:]
        for n in ["SPACE", "SHARP", "LEFT", "RIGHT", "UP", "DOWN", "PGUP", "PGDWN", "BS", "ESC", "ENTER", "HOME",
                  "END", "TAB", "DEL", "INS", "KP_ENTER"] { m[n] = n }
        for n in 1...12 { m["F\(n)"] = "F\(n)" }
        m["PGDN"] = "PGDWN"
        m["PAGEUP"] = "PGUP"
        m["PAGEDOWN"] = "PGDWN"
        m["BACKSPACE"] = "BS"
        m["ESCAPE"] = "ESC"
        m["RETURN"] = "ENTER"
        m["KP_ENTER"] = "ENTER"
        m["DELETE"] = "DEL"
        m["INSERT"] = "INS"
        m["PLUS"] = "+"
        m["MINUS"] = "-"
        return m
    }()

    /// A key name as `input.conf` may write it, in the one spelling bindings are stored under:
    /// named keys upper case (`right` = `RIGHT`), modifiers `Ctrl+`, `Alt+`, `Shift+` in that
    /// order and any case, `Ctrl+X` = `Ctrl+x`, `#` = `SHARP`, ` ` = `SPACE`. nil: not a key.
    public static func canonicalName(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        var rest = Substring(text)
        var ctrl = false, alt = false, shift = false
        // Modifiers: a `+` that is not the last character separates one (`Ctrl++` is Ctrl and +).
        while let plus = rest.firstIndex(of: "+"), plus != rest.index(before: rest.endIndex), plus != rest.startIndex {
            switch rest[..<plus].lowercased() {
            case "ctrl": ctrl = true
            case "alt", "meta": alt = true
            case "shift": shift = true
            default: return nil
            }
            rest = rest[rest.index(after: plus)...]
        }
        var key: String
        if rest.count == 1 {
            key = rest == "#" ? "SHARP" : rest == " " ? "SPACE" : String(rest)
            if ctrl, key.first!.isLetter { key = key.lowercased() }
        } else if let n = named[rest.uppercased()] {
            key = n
        } else {
            return nil
        }
        return (ctrl ? "Ctrl+" : "") + (alt ? "Alt+" : "") + (shift ? "Shift+" : "") + key
    }
}

/// The active key bindings: the defaults with a user's `input.conf` laid over them.
public struct InputBindings: Sendable {
    public private(set) var table: [String: PlayerCommand]
    /// The user's bindings that change a key (`input.conf`'s lines, the last of a key winning),
    /// in the order the keys were first bound: the key's name and the command as written.
    public private(set) var userBindings: [(key: String, command: String)] = []

    public init(table: [String: PlayerCommand] = KeyMap.defaults) { self.table = table }

    public func command(for key: Key) -> PlayerCommand? { table[key.mpvName] }

    /// The help overlay's rows (the man page's KEYS are ``KeyMap/helpRows``): the user's own
    /// bindings first (a short terminal shows the top of the box), each its key and its command
    /// as `input.conf` writes it; then the defaults, a row whose keys the user bound to
    /// something else saying which.
    public var helpRows: [(keys: String, description: String)] {
        let changed = Set(userBindings.map(\.key))
        var rows: [(keys: String, description: String)] = []
        var rebound: [String] = []
        func flush() {
            guard !rebound.isEmpty, !rows.isEmpty else { return }
            rows[rows.count - 1].description += " (" + rebound.joined(separator: " ") + ": input.conf)"
            rebound = []
        }
        for binding in KeyMap.bindings {
            if !binding.keys.isEmpty {
                flush()
                rows.append((binding.keys, binding.description))
            }
            rebound += binding.triggers.compactMap(KeyMap.canonicalName).filter(changed.contains)
        }
        flush()
        guard !userBindings.isEmpty else { return rows }
        return [("input.conf", "")] + userBindings.map { ($0.key, $0.command) } + [("", "")] + rows
    }

    /// `input.conf`'s byte budget: past it the rest is left out with a warning.
    public static let maxBytes = 1 << 20
    /// Warnings given at most (then one line says how many more there were).
    static let maxWarnings = 20

    /// Reads `input.conf` at `path` within ``maxBytes``; nil when there is no such regular file.
    public static func load(path: String, name: String = "input.conf") -> (InputBindings, [String])? {
        guard let (bytes, truncated) = TextBudget.read(path: path, limit: maxBytes) else { return nil }
        var (bindings, warnings) = load(bytes: bytes, name: name, truncated: truncated)
        if truncated { warnings.insert("\(name): larger than \(TextBudget.describe(bytes: maxBytes)); the rest is left out", at: 0) }
        return (bindings, warnings)
    }

    /// Reads `input.conf` lines (`KEY command args`, `#` comments) over the defaults. A line that
    /// does not parse is left out and reported as `input.conf:N: why`.
    public static func load(text: String, name: String = "input.conf") -> (InputBindings, [String]) {
        load(bytes: Array(text.utf8), name: name, truncated: false)
    }

    /// As ``load(text:name:)`` on bytes; a line over ``TextBudget/maxLineBytes`` is refused
    /// (`input.conf:N: line too long`), and with `truncated` a last line with no newline is
    /// left out (the file was cut at its budget).
    public static func load(bytes: [UInt8], name: String = "input.conf", truncated: Bool) -> (InputBindings, [String]) {
        var bindings = InputBindings()
        var warnings: [String] = []
        func clean(_ text: some StringProtocol) -> String { TextSanitizer.clean(String(text.prefix(80))) }
        for entry in TextBudget.lines(bytes, dropPartialLast: truncated) {
            let number = entry.number
            guard let text = entry.text else {
                warnings.append("\(name):\(number): line too long (over \(TextBudget.describe(bytes: TextBudget.maxLineBytes)))")
                continue
            }
            let line = text.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyName = KeyMap.canonicalName(String(parts[0])) else {
                warnings.append("\(name):\(number): unknown key '\(clean(parts[0]))'")
                continue
            }
            guard parts.count == 2 else {
                warnings.append("\(name):\(number): '\(clean(parts[0]))' has no command")
                continue
            }
            do {
                let command = try PlayerCommand.parse(String(parts[1]))
                bindings.table[keyName] = command
                bindings.userBindings.removeAll { $0.key == keyName }
                if command != KeyMap.defaults[keyName] {
                    bindings.userBindings.append((keyName, clean(parts[1].trimmingWhitespace())))
                }
            } catch {
                warnings.append("\(name):\(number): \(clean(error.message))")
            }
        }
        if warnings.count > maxWarnings {
            let more = warnings.count - maxWarnings
            warnings = Array(warnings.prefix(maxWarnings)) + ["\(name): … and \(more) more warnings"]
        }
        return (bindings, warnings)
    }
}
