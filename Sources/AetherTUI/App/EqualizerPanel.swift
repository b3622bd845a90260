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
