import AetherMedia
import FoundationEssentials

/// Playback: pause, volume, mute, speed and the equalizer. Volume, mute, speed and the equalizer
/// are kept for the next items, as mpv keeps the first three.
extension PropertyTable {
    static let playback: [Entry] = [pause, volume, mute, speed, equalizer]

    private static let pause = Entry(names: ["pause"], set: { c, _, value in
        guard let b = value.bool else { return .failure("'pause' takes yes or no") }
        if b { c.player.pause() } else {
            if c.item.heldAtEnd { return .failure("at the end") }
            c.player.play()
        }
        c.show(b ? "paused" : "playing")
        return .ok
    }, cycle: { c, _, _ in
        if c.item.heldAtEnd { return .failure("at the end") }
        return PropertyTable.set(c, "pause", .bool(!c.player.isPaused))
    })

    private static let volume = Entry(names: ["volume"], set: { c, _, value in
        guard let v = value.number else { return .failure("'volume' takes a number") }
        c.player.setVolume(v)
        c.settings.player.playing.volume = c.player.volume
        c.show("volume \(Int(c.player.volume.rounded())) %")
        return .ok
    }, add: { c, name, delta in
        PropertyTable.set(c, name, .number(c.player.volume + delta))
    }, multiply: { c, name, factor in
        PropertyTable.set(c, name, .number(c.player.volume * factor))
    })

    private static let mute = Entry(names: ["mute"], set: { c, _, value in
        guard let b = value.bool else { return .failure("'mute' takes yes or no") }
        c.player.setMuted(b)
        c.settings.player.playing.muted = b
        c.show(b ? "mute" : "unmute")
        return .ok
    }, cycle: { c, _, _ in
        PropertyTable.set(c, "mute", .bool(!c.player.isMuted))
    })

    /// Added to or multiplied, it goes to the hundredth.
    private static let speed = Entry(names: ["speed"], set: { c, _, value in
        guard let v = value.number, v > 0 else { return .failure("'speed' takes a number") }
        c.player.setRate(v)
        c.settings.player.playing.rate = c.player.rate
        c.show(String(cFormat: "speed %.2f×", c.player.rate))
        return .ok
    }, add: { c, name, delta in
        PropertyTable.set(c, name, .number(((c.player.rate + delta) * 100).rounded() / 100))
    }, multiply: { c, name, factor in
        PropertyTable.set(c, name, .number((c.player.rate * factor * 100).rounded() / 100))
    })

    /// `equalizer`: what `--equalizer` takes (`flat`, a preset, `bands:…`, a profile's path),
    /// heard at once and kept for the device (``EqualizerMemory``); `cycle` steps through flat
    /// and the presets.
    private static let equalizer = Entry(names: ["equalizer"], set: { c, _, value in
        guard case .string(let text) = value else { return .failure("'equalizer' takes a preset, bands:… or a profile's path") }
        let choice: EqualizerChoice
        do throws(OutsideValue.Refusal) {
            choice = try EqualizerChoice(parsing: text)
        } catch {
            return .failure(error.message)
        }
        var warnings: [String] = []
        let setting = EqualizerSetting(resolving: choice, environment: ProcessInfo.processInfo.environment) { warnings.append($0) }
        c.player.setEqualizer(setting)
        c.settings.player.playing.equalizer = setting
        if let memory = c.settings.equalizerMemory {
            if let why = memory.remember(setting.choice, for: c.settings.player.audio.output.name) { warnings.append(why) }
        }
        c.show(warnings.first ?? "equalizer \(setting.name)")
        return .ok
    }, cycle: { c, name, up in
        let order = [EqualizerChoice.flat] + EqualizerPreset.allCases.map(EqualizerChoice.preset)
        let now = order.firstIndex(of: c.settings.player.playing.equalizer.choice)
        let next = now.map { (($0 + (up ? 1 : -1)) % order.count + order.count) % order.count } ?? 0
        return PropertyTable.set(c, name, .string(order[next].text))
    })
}
