import AetherBase
import AetherCommands
import FoundationEssentials

/// The playlist: `playlist-pos` (0-based), `shuffle`, `loop-file` and `loop-playlist` (kept for
/// the rest of the session), and `stream-record` (the file the playing stream is copied to).
extension PropertyTable {
    static let playlist: [Entry] = [position, shuffle, loop(named: "loop-file"), loop(named: "loop-playlist"), streamRecord,
                                    abLoopPoint(named: "ab-loop-a"), abLoopPoint(named: "ab-loop-b"), abLoopCount]

    /// `ab-loop-a`, `ab-loop-b`: a time in seconds, or `no`.
    private static func abLoopPoint(named property: String) -> Entry {
        Entry(names: [property], set: { c, name, value in
            let point: Double?
            switch value {
            case .number(let n):
                guard let t = try? OutsideValue.seconds(n, name: name) else { return .failure("'\(name)' takes a time or no") }
                point = max(0, t)
            case .string("no"), .bool(false), .none: point = nil
            default: return .failure("'\(name)' takes a time or no")
            }
            if property == "ab-loop-a" { c.settings.abLoop.a = point } else { c.settings.abLoop.b = point }
            return .ok
        })
    }

    /// `ab-loop-count`: inf, no or a count of loops left.
    private static let abLoopCount = Entry(names: ["ab-loop-count"], set: { c, name, value in
        guard let count = loopCount(value, name: name) else { return .failure("'\(name)' takes inf, no or a count") }
        c.settings.abLoop.count = count
        return .ok
    })

    /// A count of passes or loops as IPC gives it: yes (inf) or no, a number, or `inf`/`no`/`N`;
    /// nil for anything else.
    private static func loopCount(_ value: PropertyValue, name: String) -> LoopCount? {
        switch value {
        case .bool(let b): return b ? .infinite : .no
        case .number(let n): return (try? OutsideValue.integer(n, in: 0...Int(Int32.max), name: name)).map { $0 == 0 ? .no : .times($0) }
        case .string(let s): return LoopCount(option: s)
        case .none, .list, .map: return nil
        }
    }

    /// Added to, it moves one item on or back, as `playlist-next`/`playlist-prev`.
    private static let position = Entry(names: ["playlist-pos"], set: { c, name, value in
        guard let v = value.number else { return .failure("'playlist-pos' takes a number") }
        guard let index = try? OutsideValue.integer(v, in: 0...max(0, c.playlist.count - 1), name: name),
              c.playlist.items.indices.contains(index) else { return .failure("no playlist item \(value)") }
        return c.run(.playlistPlay(index))
    }, add: { c, _, delta in
        delta >= 0 ? c.run(.playlistNext) : c.run(.playlistPrevious)
    })

    /// The item playing stays and comes first (``Playlist/shuffle(keepingCurrent:)``).
    private static let shuffle = Entry(names: ["shuffle"], set: { c, _, value in
        guard case .bool(let on) = value else { return .failure("'shuffle' takes yes or no") }
        c.settings.shuffle = on
        if on { c.playlist.shuffle(keepingCurrent: c.settings.shuffleSeed ?? UInt64.random(in: 0...UInt64.max)) } else { c.playlist.unshuffle() }
        c.show("shuffle: \(on ? "on" : "off")")
        return .ok
    }, cycle: { c, name, _ in
        PropertyTable.set(c, name, .bool(!c.settings.shuffle))
    })

    /// `inf`, `yes`, `no` or a count of passes; the passes left start again from it.
    private static func loop(named property: String) -> Entry {
        let ofFile = property == "loop-file"
        return Entry(names: [property], set: { c, name, value in
            // (None, JSON's null, stops the loop.)
            guard let loop = value == .none ? LoopCount.no : loopCount(value, name: name) else {
                return .failure("'\(name)' takes inf, no or a count")
            }
            if ofFile {
                c.settings.loopFile = loop
                c.walk.tally.fileLoopsLeft = loop
            } else {
                c.settings.loopPlaylist = loop
                c.walk.tally.playlistLoopsLeft = loop
            }
            c.show("\(name): \(loop.isOn ? "on" : "off")")
            return .ok
        }, cycle: { c, name, _ in
            PropertyTable.set(c, name, .bool(!(ofFile ? c.settings.loopFile : c.settings.loopPlaylist).isOn))
        })
    }

    /// A file name, or `""` to stop.
    private static let streamRecord = Entry(names: ["stream-record"], set: { c, name, value in
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
        c.settings.player.streamRecord = path
        if let why = c.startRecording() { return .failure(why) }
        c.show(path.map { "recording to \(TextSanitizer.clean(Paths.lastComponent($0)))" } ?? "recording stopped")
        return .ok
    })
}
