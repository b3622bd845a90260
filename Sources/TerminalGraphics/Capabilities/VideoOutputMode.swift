/// `--vo=auto|sixel|halfblock|null`.
public enum VideoOutputMode: String, Sendable, CaseIterable {
    case auto
    case sixel
    case halfblock
    case null

    /// The renderer `--vo` means on this terminal: `auto` is sixel when the terminal has it,
    /// else half-block (so inside tmux without sixel, half-block). Explicit choices are kept:
    /// the user may know better than the probe.
    public func resolve(with capabilities: TerminalCapabilities) -> VideoOutputMode {
        switch self {
        case .auto: capabilities.sixel ? .sixel : .halfblock
        default: self
        }
    }

    /// The half-block colour mode for `--vo-halfblock-colors`, or the detected one when `nil`.
    public static func halfBlockColors(option: String?, capabilities: TerminalCapabilities) -> HalfBlockColorMode? {
        guard let option else { return capabilities.truecolor ? .truecolor : .palette256 }
        switch option.lowercased() {
        case "truecolor", "24bit", "rgb": return .truecolor
        case "256": return .palette256
        default: return nil
        }
    }
}
