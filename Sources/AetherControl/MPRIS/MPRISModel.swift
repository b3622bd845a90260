import AetherCommands
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus value of the types MPRIS uses.
enum BusValue: Equatable, Sendable {
    case bool(Bool)
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case strings([String])
    /// `a{sv}`: MPRIS's metadata map, in the order given.
    case dictionary([BusEntry])

    /// The value's D-Bus type signature.
    var signature: String {
        switch self {
        case .bool: "b"
        case .int32: "i"
        case .int64: "x"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .strings: "as"
        case .dictionary: "a{sv}"
        }
    }
}

struct BusEntry: Equatable, Sendable {
    let key: String
    let value: BusValue
}

/// What the MPRIS interfaces say about a ``PlayerSnapshot``, and what their methods and
/// property writes ask of the player: no bus here, so all of it is testable as values.
/// Spec: https://specifications.freedesktop.org/mpris-spec/latest/
enum MPRIS {
    static let identity = PlayerIdentity.name
    /// The well-known name; a second player takes `<name>.instance<PID>` (the spec's form).
    static let busName = "org.mpris.MediaPlayer2.aether-tui"
    static func instanceBusName(pid: Int32) -> String { "\(busName).instance\(pid)" }
    /// The spec's track id for "no current track".
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
    static let minimumRate = 0.25
    static let maximumRate = 4.0
    /// Volume as MPRIS counts it (1.0 = 100 %) goes up to the player's 130 %.
    static let maximumVolume = 1.3
    static let uriSchemes = ["file", "http", "https"]
    static let mimeTypes = [
        "audio/aac", "audio/flac", "audio/mp4", "audio/mpeg", "audio/ogg", "audio/opus", "audio/wav",
        "audio/webm", "audio/x-flac", "audio/x-matroska", "audio/x-vorbis+ogg", "audio/x-wav",
        "video/mp2t", "video/mp4", "video/mpeg", "video/ogg", "video/quicktime", "video/webm",
        "video/x-matroska", "video/x-msvideo", "application/ogg",
    ]

    /// D-Bus error names of the replies.
    enum ErrorName {
        static let failed = "org.freedesktop.DBus.Error.Failed"
        static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
        static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    }

    struct Failure: Error, Equatable {
        let name: String
        let message: String
    }

    // MARK: org.mpris.MediaPlayer2

    static func rootProperty(_ name: String) -> BusValue? {
        switch name {
        case "CanQuit": .bool(true)
        case "CanRaise": .bool(false)
        case "HasTrackList": .bool(false)
        case "Identity": .string(identity)
        case "SupportedUriSchemes": .strings(uriSchemes)
        case "SupportedMimeTypes": .strings(mimeTypes)
        default: nil
        }
    }

    // MARK: org.mpris.MediaPlayer2.Player properties

    /// Player properties whose changes are signalled with PropertiesChanged (Position never is:
    /// clients extrapolate it from Rate and hear about jumps through Seeked).
    static let signalledProperties = [
        "PlaybackStatus", "LoopStatus", "Rate", "Shuffle", "Metadata", "Volume",
        "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek",
    ]

    static func playerProperty(_ name: String, _ s: PlayerSnapshot) -> BusValue? {
        switch name {
        case "PlaybackStatus": .string(playbackStatus(s))
        case "LoopStatus": .string(loopStatus(s))
        case "Rate": .double(s.speed)
        case "Shuffle": .bool(s.queue.shuffle)
        case "Metadata": .dictionary(metadata(s))
        case "Volume": .double(s.audio.volume / 100)
        case "Position": .int64(microseconds(s.status == .stopped ? 0 : s.position))
        case "MinimumRate": .double(minimumRate)
        case "MaximumRate": .double(maximumRate)
        case "CanGoNext": .bool(s.queue.canGoNext)
        case "CanGoPrevious": .bool(s.queue.canGoPrevious)
        case "CanPlay", "CanPause": .bool(hasTrack(s))
        case "CanSeek": .bool(canSeek(s))
        case "CanControl": .bool(true)
        default: nil
        }
    }

    /// The signalled properties whose value differs between two snapshots.
    static func changedProperties(from old: PlayerSnapshot, to new: PlayerSnapshot) -> [String] {
        signalledProperties.filter { playerProperty($0, old) != playerProperty($0, new) }
    }

    static func playbackStatus(_ s: PlayerSnapshot) -> String {
        switch s.status {
        case .playing: "Playing"
        case .paused: "Paused"
        case .stopped: "Stopped"
        }
    }

    static func loopStatus(_ s: PlayerSnapshot) -> String {
        s.queue.loopFile ? "Track" : s.queue.loopPlaylist ? "Playlist" : "None"
    }

    /// Whether there is a current item (CanPlay and CanPause: the spec ties them to a current
    /// track, not to whether it is playing).
    static func hasTrack(_ s: PlayerSnapshot) -> Bool { s.item.path != nil || s.queue.count > 0 }

    static func canSeek(_ s: PlayerSnapshot) -> Bool {
        guard s.status != .stopped, let d = s.duration else { return false }
        return d.isFinite && d > 0
    }

    /// `/org/aether_tui/track/<playlist index>`, or the spec's NoTrack path.
    static func trackID(_ s: PlayerSnapshot) -> String {
        guard s.item.path != nil else { return noTrack }
        return "/org/aether_tui/track/\(max(0, s.queue.position ?? 0))"
    }

    static func metadata(_ s: PlayerSnapshot) -> [BusEntry] {
        var entries = [BusEntry(key: "mpris:trackid", value: .objectPath(trackID(s)))]
        guard let path = s.item.path else { return entries }
        func add(_ key: String, _ value: BusValue?) {
            if let value { entries.append(BusEntry(key: key, value: value)) }
        }
        if let d = s.duration, d.isFinite, d > 0 { add("mpris:length", .int64(microseconds(d))) }
        add("xesam:title", (s.item.mediaTitle ?? s.item.tags.title ?? s.item.filename).map { .string(busText($0)) })
        add("xesam:artist", s.item.tags.artist.map { .strings([busText($0)]) })
        add("xesam:album", s.item.tags.album.map { .string(busText($0)) })
        add("xesam:albumArtist", s.item.tags.albumArtist.map { .strings([busText($0)]) })
        add("xesam:genre", s.item.tags.genre.map { .strings([busText($0)]) })
        add("xesam:trackNumber", s.item.tags.track.map { .int32(Int32(clamping: $0)) })
        add("xesam:url", .string(busText(url(of: path))))
        add("mpris:artUrl", s.item.artURL.map { .string(busText($0)) })
        return entries
    }

    /// The item's URL: a URL as given, a path as a `file://` URI (percent-encoded).
    static func url(of path: String) -> String {
        if path.contains("://") { return path }
        return URL(fileURLWithPath: path, isDirectory: false).absoluteString
    }

    /// Seconds as MPRIS's microseconds (0 for a value that is not finite).
    static func microseconds(_ seconds: Double) -> Int64 {
        let us = (seconds * 1_000_000).rounded()
        guard us.isFinite else { return 0 }
        return Int64(max(-9.2e18, min(9.2e18, us)))
    }

    /// `text` as sd-bus accepts it: no NUL, and no noncharacter (U+FDD0–U+FDEF, U+xFFFE,
    /// U+xFFFF), which its UTF-8 check rejects though they are valid Unicode scalars (they
    /// become U+FFFD). Swift strings are valid UTF-8 already.
    static func busText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value == 0 || isNoncharacter($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars where u.value != 0 {
            out.append(isNoncharacter(u) ? "\u{FFFD}" : u)
        }
        return String(out)
    }

    private static func isNoncharacter(_ u: Unicode.Scalar) -> Bool {
        (0xFDD0...0xFDEF).contains(u.value) || u.value & 0xFFFE == 0xFFFE
    }

    // MARK: methods

    enum Method: Equatable {
        case raise, quit
        case playPause, play, pause, stop, next, previous
        /// Offset in microseconds.
        case seek(Int64)
        case setPosition(trackID: String, Int64)
        case openURI(String)
    }

    /// What a method call comes to.
    enum Outcome: Equatable {
        /// The player runs this; the call is answered with its result.
        case run(PlayerCommand)
        /// Answered at once; the player is not asked (Raise; calls the spec says have no
        /// effect, like Next with CanGoNext false).
        case ignore
        case fail(Failure)
    }

    static func outcome(of method: Method, _ s: PlayerSnapshot) -> Outcome {
        switch method {
        case .raise: return .ignore
        case .quit: return .run(.quit(code: 0, watchLater: false))
        case .playPause: return hasTrack(s) ? .run(.cycle("pause", up: true)) : .ignore
        case .play: return hasTrack(s) ? .run(.set("pause", .bool(false))) : .ignore
        case .pause: return hasTrack(s) ? .run(.set("pause", .bool(true))) : .ignore
        // As mpv-mpris does: mpv's `stop` (playback ends, the playlist is cleared).
        case .stop: return .run(.stop)
        case .next: return s.queue.canGoNext ? .run(.playlistNext) : .ignore
        case .previous: return s.queue.canGoPrevious ? .run(.playlistPrevious) : .ignore
        case .seek(let offset):
            guard canSeek(s) else { return .ignore }
            return .run(.seek(Double(offset) / 1_000_000, .relative, .auto))
        case .setPosition(let track, let position):
            // The spec: ignored for a stale track id or a position outside the track.
            guard canSeek(s), track == trackID(s), position >= 0,
                  Double(position) <= (s.duration ?? 0) * 1_000_000 else { return .ignore }
            return .run(.seek(Double(position) / 1_000_000, .absolute, .exact))
        case .openURI(let uri):
            switch localTarget(of: uri) {
            case .success(let target): return .run(.loadfile(target, .replace))
            case .failure(let failure): return .fail(failure)
            }
        }
    }

    /// What `loadfile` gets for an OpenUri argument: a `file://` URI's path (percent-decoded),
    /// an http(s) URL as is.
    static func localTarget(of uri: String) -> Result<String, Failure> {
        let scheme = uri.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        switch scheme {
        case "file":
            guard let url = URL(string: uri), url.isFileURL, !url.path.isEmpty else {
                return .failure(Failure(name: ErrorName.invalidArgs, message: "'\(uri)' is not a file URI"))
            }
            return .success(url.path)
        case "http", "https":
            return .success(uri)
        default:
            return .failure(Failure(name: ErrorName.notSupported,
                                    message: "unsupported URI scheme '\(scheme)' (file, http and https are)"))
        }
    }

    // MARK: property writes

    /// The commands that set a writable player property (LoopStatus, Rate, Shuffle, Volume).
    static func commands(setting property: String, to value: BusValue, _ s: PlayerSnapshot)
        -> Result<[PlayerCommand], Failure>
    {
        switch (property, value) {
        case ("LoopStatus", .string(let status)):
            switch status {
            case "None": return .success([.set("loop-file", .bool(false)), .set("loop-playlist", .bool(false))])
            case "Track": return .success([.set("loop-file", .bool(true))])
            case "Playlist": return .success([.set("loop-file", .bool(false)), .set("loop-playlist", .bool(true))])
            default:
                return .failure(Failure(name: ErrorName.invalidArgs,
                                        message: "LoopStatus '\(status)' is not None, Track or Playlist"))
            }
        case ("Shuffle", .bool(let on)):
            return .success([.set("shuffle", .bool(on))])
        case ("Rate", .double(let rate)):
            guard rate.isFinite else { return .failure(Failure(name: ErrorName.invalidArgs, message: "Rate is not a number")) }
            // The spec: a rate of 0 acts as Pause; others are kept within MinimumRate…MaximumRate.
            if rate == 0 { return .success(hasTrack(s) ? [.set("pause", .bool(true))] : []) }
            return .success([.set("speed", .number(min(maximumRate, max(minimumRate, rate))))])
        case ("Volume", .double(let volume)):
            guard volume.isFinite else { return .failure(Failure(name: ErrorName.invalidArgs, message: "Volume is not a number")) }
            // The spec: negative values count as 0.
            let percent = min(maximumVolume, max(0, volume)) * 100
            return .success([.set("volume", .number((percent * 1000).rounded() / 1000))])
        default:
            return .failure(Failure(name: ErrorName.invalidArgs, message: "'\(property)' cannot be set to that value"))
        }
    }
}
