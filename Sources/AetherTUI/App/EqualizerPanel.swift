import AetherCommands
import AetherInput
import AetherMedia

/// `e`: the equalizer's panel (#63). Its model is the band chosen and the equalizer as the panel
/// last knew it; the curve it draws is the setting's, and the preamp the engine's (its safe
/// preamp at the stream's rate). Every change goes to the controller as `set equalizer …`, the
/// command a binding or the IPC would send: heard at once, kept for the items after and for the
/// device.
struct EqualizerPanel: Equatable {
    /// The band ←/→ chose (0: 31.5 Hz … 9: 16 kHz).
    var band = 0
    /// The equalizer as set (the player's: the panel follows a change from the IPC).
    var setting: EqualizerSetting
    /// The curve as it runs (its preamp lowered where it would clip); flat when nothing plays.
    var running: EqualizerCurve

    /// A band's step on ↑/↓ and the wheel, dB.
    static let step = 1.0

    /// The ten gains the panel moves: the setting's when it is a graphic curve (a preset, bands,
    /// flat); nil for a profile, whose filters are its own.
    var gains: [Double]? {
        switch setting.choice {
        case .flat: Array(repeating: 0, count: GraphicBands.centres.count)
        case .preset(let preset): preset.gains
        case .bands(let gains): gains
        case .profile: nil
        }
    }

    /// The choice with band `band` at `gain` dB (clamped to the bands' range); nil for a profile.
    func choice(band: Int, gain: Double) -> EqualizerChoice? {
        guard var gains, gains.indices.contains(band) else { return nil }
        gains[band] = gain.clamped(to: GraphicBands.range)
        return gains.allSatisfy({ $0 == 0 }) ? .flat : .bands(gains)
    }
}

/// The panel's update: its keys (←/→ a band, ↑/↓ its gain, `p`/`P` the presets, `r` flat, Esc or
/// `e` close; the rest go to the bindings, so the music can be paused, skipped and quit under it)
/// and the mouse on it.
enum EqualizerUpdate {
    static func key(_ view: inout ViewState, _ key: Key) -> [HostEffect]? {
        guard var panel = view.equalizer else { return nil }
        let now = view.chrome.lastInput
        switch key {
        case .left, .character("h"): panel.band = max(0, panel.band - 1)
        case .right, .character("l"): panel.band = min(GraphicBands.centres.count - 1, panel.band + 1)
        case .up, .down, .character("k"), .character("j"):
            let up = key == .up || key == .character("k")
            return move(&view, band: panel.band, by: up ? EqualizerPanel.step : -EqualizerPanel.step, now: now)
        case .character("p"): return [.command(.cycle("equalizer", up: true))]
        case .character("P"): return [.command(.cycle("equalizer", up: false))]
        case .character("r"): return set(&view, .flat)
        case .escape, .character("e"):
            view.equalizer = nil
            return [.redraw]
        default: return nil
        }
        view.equalizer = panel
        return [.redraw]
    }

    /// Band `band` moved by `delta` dB.
    static func move(_ view: inout ViewState, band: Int, by delta: Double, now: Double) -> [HostEffect] {
        guard let panel = view.equalizer, let gains = panel.gains else {
            view.message.show("a profile's filters are its own: p for a preset, r for flat bands", seconds: 2, at: now)
            return [.redraw]
        }
        view.equalizer?.band = band
        guard let choice = panel.choice(band: band, gain: gains[band] + delta) else { return [] }
        return set(&view, choice)
    }

    /// Band `band` at `gain` dB (a click on the panel).
    static func place(_ view: inout ViewState, band: Int, gain: Double, now: Double) -> [HostEffect] {
        guard let gains = view.equalizer?.gains else { return move(&view, band: band, by: 0, now: now) }
        return move(&view, band: band, by: gain.rounded() - gains[band], now: now)
    }

    /// The panel shows `choice` at once (a graphic curve resolves without reading anything) and
    /// the controller is told.
    private static func set(_ view: inout ViewState, _ choice: EqualizerChoice) -> [HostEffect] {
        view.equalizer?.setting = EqualizerSetting(resolving: choice, environment: [:]) { _ in }
        return [.command(.set("equalizer", .string(choice.text))), .redraw]
    }

    /// The loop's tick: the panel follows the player's equalizer (set by the IPC, a binding, the
    /// next item) and the curve it runs.
    static func follow(_ view: inout ViewState, setting: EqualizerSetting, running: EqualizerCurve) -> Bool {
        guard let panel = view.equalizer, panel.setting != setting || panel.running != running else { return false }
        view.equalizer?.setting = setting
        view.equalizer?.running = running
        return true
    }
}
