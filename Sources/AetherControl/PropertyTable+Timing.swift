import AetherBase
import AetherCommands
import AetherPlayback
import FoundationEssentials

/// Timing: the subtitle and audio delays (added to, they go to the millisecond), the position
/// (`time-pos` in seconds, `percent-pos`: seeks) and the chapter.
extension PropertyTable {
    static let timing: [Entry] = [subtitleDelay, audioDelay, timePosition, percentPosition, chapter]

    /// Kept for the next items (``PlayerController/subtitleDelaySetting``).
    private static let subtitleDelay = Entry(names: ["sub-delay"], set: { c, _, value in
        guard let v = value.number else { return .failure("'sub-delay' takes seconds") }
        c.player.setSubtitleDelay(v)
        c.subtitleDelaySetting = c.player.subtitleDelay
        c.show(String(cFormat: "subtitle delay %+.1f s", c.player.subtitleDelay))
        return .ok
    }, add: { c, name, delta in
        PropertyTable.set(c, name, .number(((c.player.subtitleDelay + delta) * 1000).rounded() / 1000))
    })

    private static let audioDelay = Entry(names: ["audio-delay"], set: { c, _, value in
        guard let v = value.number else { return .failure("'audio-delay' takes seconds") }
        c.player.setAudioDelay(v)
        c.settings.player.playing.audioDelay = c.player.audioDelay
        c.show(String(cFormat: "audio delay %+.1f s", c.player.audioDelay))
        return .ok
    }, add: { c, name, delta in
        PropertyTable.set(c, name, .number(((c.player.audioDelay + delta) * 1000).rounded() / 1000))
    })

    private static let timePosition = Entry(names: ["time-pos"], set: { c, _, value in
        guard let v = value.number else { return .failure("'time-pos' takes seconds") }
        return c.run(.seek(v, .absolute, .exact))
    }, add: { c, _, delta in
        c.run(.seek(delta, .relative, .exact))
    })

    private static let percentPosition = Entry(names: ["percent-pos"], set: { c, _, value in
        guard let v = value.number else { return .failure("'percent-pos' takes a percentage") }
        return c.run(.seek(v, .absolutePercent, .exact))
    })

    /// 0-based; any step past the first or last chapter is as far as it goes.
    private static let chapter = Entry(names: ["chapter"], set: { c, name, value in
        let chapters = c.player.mediaInfo?.chapters ?? []
        guard let v = value.number else { return .failure("'chapter' takes a number") }
        guard let index = try? OutsideValue.integer(v, in: 0...max(0, chapters.count - 1), name: name),
              chapters.indices.contains(index) else { return .failure("no such chapter") }
        return jump(c, toChapter: index)
    }, add: { c, _, delta in
        guard let steps = OutsideValue.clampedInteger(delta, to: -100_000...100_000) else { return .failure("'chapter' takes a number") }
        return jump(c, chapters: steps)
    })

    /// `delta` chapters on from the one playing (``ChapterStep``: going back from further into a
    /// chapter than `--chapter-seek-threshold` restarts it, as in mpv).
    private static func jump(_ c: PlayerController, chapters delta: Int) -> CommandResult {
        guard let chapters = c.player.mediaInfo?.chapters, !chapters.isEmpty else { return .failure("no chapters") }
        guard let target = ChapterStep.target(starts: chapters.map(\.start), now: c.player.currentTime, delta: delta,
                                              threshold: c.settings.chapterSeekThreshold) else { return .failure("no more chapters") }
        return jump(c, toChapter: target)
    }

    private static func jump(_ c: PlayerController, toChapter index: Int) -> CommandResult {
        guard let chapters = c.player.mediaInfo?.chapters, chapters.indices.contains(index) else { return .failure("no such chapter") }
        c.player.seek(to: chapters[index].start, mode: .exact)
        c.hub.emit(.seeked(position: chapters[index].start))
        c.show("chapter \(index + 1)/\(chapters.count): \(chapters[index].title ?? "")")
        return .ok
    }

    /// `seek <amount> relative|absolute|absolute-percent [exact|keyframes]`: exact as
    /// `--hr-seek` says where the command does not. A keyframe seek forward lands at or after
    /// its target, backward at or before it.
    static func seek(_ c: PlayerController, _ requested: Double, _ reference: PlayerCommand.SeekReference, _ precision: PlayerCommand.SeekPrecision) -> CommandResult {
        guard c.player.mediaInfo != nil else { return .failure("nothing is playing") }
        // Clamped to ±31 years: `seek 1e308` goes to the end, as far as any file reaches.
        let amount: Double
        do { amount = try OutsideValue.seconds(requested, name: "seek") } catch { return .failure(error.message) }
        let mode: SeekMode = c.settings.hrSeek.isExact(precision, reference) ? .exact : .keyframe
        let target: Double
        switch reference {
        case .relative:
            target = c.player.currentTime + amount
            c.player.seek(by: amount, mode: mode)
            c.show(String(cFormat: "seek %+.0f s", amount))
        case .absolute:
            // mpv: a negative absolute time counts from the end.
            target = amount < 0 ? max(0, (c.player.duration ?? 0) + amount) : amount
            c.player.seek(to: target, mode: mode)
            c.show("seek to \(TimeFormat.clock(target))")
        case .absolutePercent:
            // Live: percentages of the kept window (100 is the live edge).
            guard let range = c.player.seekableRange, range.upperBound > range.lowerBound else {
                return .failure("the length is unknown")
            }
            target = range.lowerBound + min(100, max(0, amount)) / 100 * (range.upperBound - range.lowerBound)
            c.player.seek(to: target, mode: mode)
            c.show(c.player.isLive && amount >= 100 ? "back to live" : "seek to \(TimeFormat.clock(target))")
        }
        if c.item.heldAtEnd { c.item.heldAtEnd = false }
        c.hub.emit(.seeked(position: max(0, target)))
        return .ok
    }
}
