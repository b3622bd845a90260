import AetherEngine
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Transport: seeks (the chapter property's jumps are ``PropertyTable``'s).
extension PlayerController {
    /// `seek <amount> relative|absolute|absolute-percent [exact|keyframes]`: exact as
    /// `--hr-seek` says where the command does not. A keyframe seek forward lands at or after
    /// its target, backward at or before it.
    func seek(_ requested: Double, _ reference: PlayerCommand.SeekReference, _ precision: PlayerCommand.SeekPrecision) -> CommandResult {
        guard player.mediaInfo != nil else { return .failure("nothing is playing") }
        // Clamped to ±31 years: `seek 1e308` goes to the end, as far as any file reaches.
        let amount: Double
        do { amount = try OutsideValue.seconds(requested, name: "seek") } catch { return .failure(error.message) }
        let mode: SeekMode = settings.hrSeek.isExact(precision, reference) ? .exact : .keyframe
        let target: Double
        switch reference {
        case .relative:
            target = player.currentTime + amount
            player.seek(by: amount, mode: mode)
            show(String(cFormat: "seek %+.0f s", amount))
        case .absolute:
            // mpv: a negative absolute time counts from the end.
            target = amount < 0 ? max(0, (player.duration ?? 0) + amount) : amount
            player.seek(to: target, mode: mode)
            show("seek to \(Self.clock(target))")
        case .absolutePercent:
            // Live: percentages of the kept window (100 is the live edge).
            guard let range = player.seekableRange, range.upperBound > range.lowerBound else {
                return .failure("the length is unknown")
            }
            target = range.lowerBound + min(100, max(0, amount)) / 100 * (range.upperBound - range.lowerBound)
            player.seek(to: target, mode: mode)
            show(player.isLive && amount >= 100 ? "back to live" : "seek to \(Self.clock(target))")
        }
        if item.heldAtEnd { item.heldAtEnd = false }
        hub.emit(.seeked(position: max(0, target)))
        return .ok
    }
}
