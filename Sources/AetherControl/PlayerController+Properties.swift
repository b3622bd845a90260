import AetherEngine
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Properties: `set`, `add`, `multiply` and `cycle` by mpv's names (tracks in +Tracks).
extension PlayerController {
    func set(_ name: String, _ value: PropertyValue) -> CommandResult {
        switch name {
        case "pause":
            guard let b = value.bool else { return .failure("'pause' takes yes or no") }
            if b { player.pause() } else {
                if heldAtEnd { return .failure("at the end") }
                player.play()
            }
            show(b ? "paused" : "playing")
        case "volume":
            guard let v = value.number else { return .failure("'volume' takes a number") }
            player.setVolume(v)
            // Kept for the next items, as mpv keeps it.
            settings.player.volume = player.volume
            show("volume \(Int(player.volume.rounded())) %")
        case "mute":
            guard let b = value.bool else { return .failure("'mute' takes yes or no") }
            player.setMuted(b)
            settings.player.muted = b
            show(b ? "mute" : "unmute")
        case "speed":
            guard let v = value.number, v > 0 else { return .failure("'speed' takes a number") }
            player.setRate(v)
            settings.player.speed = player.rate
            show(String(cFormat: "speed %.2f×", player.rate))
        case "aid", "audio": return setAudioTrack(value)
        case "vid", "video": return setVideoTrack(value)
        case "sid", "sub": return setSubtitleTrack(value)
        case "sub-delay":
            guard let v = value.number else { return .failure("'sub-delay' takes seconds") }
            player.setSubtitleDelay(v)
            subtitleDelaySetting = player.subtitleDelay
            show(String(cFormat: "subtitle delay %+.1f s", player.subtitleDelay))
        case "audio-delay":
            guard let v = value.number else { return .failure("'audio-delay' takes seconds") }
            player.setAudioDelay(v)
            settings.player.audioDelay = player.audioDelay
            show(String(cFormat: "audio delay %+.1f s", player.audioDelay))
        case "sub-visibility":
            guard let b = value.bool else { return .failure("'sub-visibility' takes yes or no") }
            subtitlesVisible = b
            show(b ? "subtitles visible" : "subtitles hidden")
        case "time-pos":
            guard let v = value.number else { return .failure("'time-pos' takes seconds") }
            return run(.seek(v, .absolute, .exact))
        case "percent-pos":
            guard let v = value.number else { return .failure("'percent-pos' takes a percentage") }
            return run(.seek(v, .absolutePercent, .exact))
        case "chapter":
            let chapters = player.mediaInfo?.chapters ?? []
            guard let v = value.number else { return .failure("'chapter' takes a number") }
            guard let index = try? OutsideValue.integer(v, in: 0...max(0, chapters.count - 1), name: name),
                  chapters.indices.contains(index) else { return .failure("no such chapter") }
            return jumpToChapter(index)
        case "playlist-pos":
            guard let v = value.number else { return .failure("'playlist-pos' takes a number") }
            guard let index = try? OutsideValue.integer(v, in: 0...max(0, playlist.count - 1), name: name),
                  playlist.items.indices.contains(index) else { return .failure("no playlist item \(value)") }
            return run(.playlistPlay(index))
        case "stream-record":
            let path: String?
            switch value {
            case .string(let s) where !s.isEmpty:
                guard let checked = try? OutsideValue.text(s, maxBytes: 4096, name: name), !checked.contains("\0") else {
                    return .failure("'stream-record' takes a file name")
                }
                path = checked
            case .string, .none: path = nil
            default: return .failure("'stream-record' takes a file name, or \"\" to stop")
            }
            settings.player.streamRecord = path
            if let why = startRecording() { return .failure(why) }
            show(path.map { "recording to \(TextSanitizer.clean(Paths.lastComponent($0)))" } ?? "recording stopped")
        case "shuffle":
            guard case .bool(let on) = value else { return .failure("'shuffle' takes yes or no") }
            settings.shuffle = on
            if on { playlist.shuffle(keepingCurrent: settings.shuffleSeed ?? UInt64.random(in: 0...UInt64.max)) } else { playlist.unshuffle() }
            show("shuffle: \(on ? "on" : "off")")
        case "loop-file", "loop-playlist":
            let loop: LoopCount?
            switch value {
            case .bool(let b): loop = b ? .infinite : .no
            case .number(let n): loop = (try? OutsideValue.integer(n, in: 0...Int(Int32.max), name: name)).map { $0 == 0 ? .no : .times($0) }
            case .string(let s): loop = LoopCount(option: s)
            case .none: loop = .no
            case .list, .map: loop = nil
            }
            guard let loop else { return .failure("'\(name)' takes inf, no or a count") }
            if name == "loop-file" { settings.loopFile = loop; loopsLeft = loop } else {
                settings.loopPlaylist = loop; playlistLoopsLeft = loop
            }
            show("\(name): \(loop.isOn ? "on" : "off")")
        default:
            return .failure("unknown property '\(name)'")
        }
        return .ok
    }

    /// A 1-based track number in 1…count from a property value (nil: not one).
    func track(_ value: PropertyValue, count: Int) -> Int? {
        guard count > 0, let v = value.number else { return nil }
        return try? OutsideValue.integer(v, in: 1...count, name: "track")
    }

    func add(_ name: String, _ delta: Double) -> CommandResult {
        switch name {
        case "volume": return set(name, .number(player.volume + delta))
        case "speed": return set(name, .number(((player.rate + delta) * 100).rounded() / 100))
        case "sub-delay": return set(name, .number(((player.subtitleDelay + delta) * 1000).rounded() / 1000))
        case "audio-delay": return set(name, .number(((player.audioDelay + delta) * 1000).rounded() / 1000))
        case "chapter":
            // Any step past the first or last chapter is as far as it goes.
            guard let steps = OutsideValue.clampedInteger(delta, to: -100_000...100_000) else { return .failure("'chapter' takes a number") }
            return jumpChapter(steps)
        case "time-pos": return run(.seek(delta, .relative, .exact))
        case "playlist-pos": return delta >= 0 ? run(.playlistNext) : run(.playlistPrevious)
        default: return .failure("cannot add to '\(name)'")
        }
    }

    func multiply(_ name: String, _ factor: Double) -> CommandResult {
        guard name == "speed" || name == "volume" else { return .failure("cannot multiply '\(name)'") }
        let current = name == "speed" ? player.rate : player.volume
        return set(name, .number(name == "speed" ? (current * factor * 100).rounded() / 100 : current * factor))
    }

    func cycle(_ name: String, up: Bool) -> CommandResult {
        switch name {
        case "pause":
            if heldAtEnd { return .failure("at the end") }
            return set("pause", .bool(!player.isPaused))
        case "mute": return set("mute", .bool(!player.isMuted))
        case "sub-visibility": return set("sub-visibility", .bool(!subtitlesVisible))
        case "loop-file": return set(name, .bool(!settings.loopFile.isOn))
        case "loop-playlist": return set(name, .bool(!settings.loopPlaylist.isOn))
        case "shuffle": return set(name, .bool(!settings.shuffle))
        case "vid", "video": return cycleVideoTrack(up: up)
        case "aid", "audio": return cycleAudioTrack(up: up)
        case "sid", "sub": return cycleSubtitleTrack(up: up)
        default:
            return .failure("cannot cycle '\(name)'")
        }
    }
}
