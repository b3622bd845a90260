/// What a key does. The TUI's input loop maps keys to these; the help overlay, `--help` and the
/// man page list the same table (`KeyMap.bindings`).
public enum Command: Equatable, Sendable {
    case togglePause
    case seek(seconds: Double, exact: Bool)
    case chapter(delta: Int)
    case speedMultiply(Double)
    case speedReset
    case volume(delta: Double)
    case toggleMute
    case cycleAudio
    case cycleSubtitles(forward: Bool)
    case toggleSubtitles
    case subtitleDelay(delta: Double)
    case frameStep(forward: Bool)
    case toggleStats
    case toggleHelp
    case toggleTelemetry
    case openAudioMenu
    case openSubtitleMenu
    case cycleRenderer
    case toggleRemaining
    case togglePinChrome
    case browse
    case filmstrip
    case screenshot(subtitles: Bool)
    case quit
}

/// A key the user can press, in terminal-neutral form.
public enum Key: Hashable, Sendable {
    case character(Character)
    case left, right, up, down, shiftLeft, shiftRight, pageUp, pageDown, backspace, escape, enter, home, end
}

public struct KeyBinding: Sendable {
    /// How the help overlay and the man page name the key(s).
    public let keys: String
    public let description: String
    public let triggers: [Key]
    public let command: Command
}

/// mpv's default keys where mpv has one; our own choices for what mpv lacks.
public enum KeyMap {
    public static let bindings: [KeyBinding] = [
        KeyBinding(keys: "space, p", description: "pause / play", triggers: [.character(" "), .character("p")], command: .togglePause),
        KeyBinding(keys: "← →", description: "seek back / forward 5 seconds", triggers: [.left], command: .seek(seconds: -5, exact: false)),
        KeyBinding(keys: "", description: "", triggers: [.right], command: .seek(seconds: 5, exact: false)),
        KeyBinding(keys: "↓ ↑", description: "seek back / forward 60 seconds", triggers: [.down], command: .seek(seconds: -60, exact: false)),
        KeyBinding(keys: "", description: "", triggers: [.up], command: .seek(seconds: 60, exact: false)),
        KeyBinding(keys: "Shift+← Shift+→", description: "seek back / forward 1 second, exactly", triggers: [.shiftLeft], command: .seek(seconds: -1, exact: true)),
        KeyBinding(keys: "", description: "", triggers: [.shiftRight], command: .seek(seconds: 1, exact: true)),
        KeyBinding(keys: "PgUp PgDn", description: "previous / next chapter", triggers: [.pageUp], command: .chapter(delta: -1)),
        KeyBinding(keys: "", description: "", triggers: [.pageDown], command: .chapter(delta: 1)),
        KeyBinding(keys: "[ ]", description: "speed −10 % / +10 %", triggers: [.character("[")], command: .speedMultiply(1 / 1.1)),
        KeyBinding(keys: "", description: "", triggers: [.character("]")], command: .speedMultiply(1.1)),
        KeyBinding(keys: "{ }", description: "halve / double speed", triggers: [.character("{")], command: .speedMultiply(0.5)),
        KeyBinding(keys: "", description: "", triggers: [.character("}")], command: .speedMultiply(2)),
        KeyBinding(keys: "Backspace", description: "reset speed to 1×", triggers: [.backspace], command: .speedReset),
        KeyBinding(keys: "9 0", description: "volume down / up", triggers: [.character("9"), .character("/")], command: .volume(delta: -2)),
        KeyBinding(keys: "", description: "", triggers: [.character("0"), .character("*")], command: .volume(delta: 2)),
        KeyBinding(keys: "m", description: "mute / unmute", triggers: [.character("m")], command: .toggleMute),
        KeyBinding(keys: "#", description: "next audio track", triggers: [.character("#")], command: .cycleAudio),
        KeyBinding(keys: "j J", description: "next / previous subtitle track", triggers: [.character("j")], command: .cycleSubtitles(forward: true)),
        KeyBinding(keys: "", description: "", triggers: [.character("J")], command: .cycleSubtitles(forward: false)),
        KeyBinding(keys: "v", description: "subtitles on / off", triggers: [.character("v")], command: .toggleSubtitles),
        KeyBinding(keys: "z Z", description: "subtitle delay −0.1 / +0.1 seconds", triggers: [.character("z")], command: .subtitleDelay(delta: -0.1)),
        KeyBinding(keys: "", description: "", triggers: [.character("Z"), .character("x")], command: .subtitleDelay(delta: 0.1)),
        KeyBinding(keys: ". ,", description: "step one frame forward / back (pauses)", triggers: [.character(".")], command: .frameStep(forward: true)),
        KeyBinding(keys: "", description: "", triggers: [.character(",")], command: .frameStep(forward: false)),
        KeyBinding(keys: "a", description: "audio track menu", triggers: [.character("a")], command: .openAudioMenu),
        KeyBinding(keys: "c", description: "subtitle track menu", triggers: [.character("c")], command: .openSubtitleMenu),
        KeyBinding(keys: "i", description: "stats overlay", triggers: [.character("i"), .character("I")], command: .toggleStats),
        KeyBinding(keys: "T", description: "telemetry pane with sparklines", triggers: [.character("T")], command: .toggleTelemetry),
        KeyBinding(keys: "d", description: "switch renderer (sixel / half-block)", triggers: [.character("d")], command: .cycleRenderer),
        KeyBinding(keys: "r", description: "show remaining time instead of duration", triggers: [.character("r")], command: .toggleRemaining),
        KeyBinding(keys: "o", description: "pin the transport bar (no auto-hide)", triggers: [.character("o")], command: .togglePinChrome),
        KeyBinding(keys: "b", description: "scrub with a preview (arrows move, Enter seeks, Esc leaves)",
                   triggers: [.character("b")], command: .browse),
        KeyBinding(keys: "B", description: "filmstrip around the position (pauses; ← → Enter Esc)",
                   triggers: [.character("B")], command: .filmstrip),
        KeyBinding(keys: "s S", description: "screenshot (PNG at source size) with / without subtitles", triggers: [.character("s")],
                   command: .screenshot(subtitles: true)),
        KeyBinding(keys: "", description: "", triggers: [.character("S")], command: .screenshot(subtitles: false)),
        KeyBinding(keys: "?", description: "this help", triggers: [.character("?")], command: .toggleHelp),
        KeyBinding(keys: "q", description: "quit", triggers: [.character("q"), .character("Q")], command: .quit),
    ]

    private static let table: [Key: Command] = {
        var t: [Key: Command] = [:]
        for b in bindings { for k in b.triggers { t[k] = b.command } }
        return t
    }()

    public static func command(for key: Key) -> Command? { table[key] }

    /// The rows the help overlay and the man page show (paired keys merged into one row).
    public static var helpRows: [(keys: String, description: String)] {
        bindings.filter { !$0.keys.isEmpty }.map { ($0.keys, $0.description) }
    }
}
