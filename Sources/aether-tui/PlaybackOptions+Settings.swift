import AetherControl
import AetherEngine
import ArgumentParser
import TerminalGraphics
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The settings the options build: the engine's `PlayerOptions`, the subtitle style, the playlist,
/// how it plays, and the remote services.
extension PlaybackOptions {
    /// `--sub-ass` and the `--sub-*` style options, checked: out-of-range numbers, NaN,
    /// colours that are not hex and font names with control characters are refused.
    func subtitleStyle() throws(ValidationError) -> ASSStyleOptions {
        var style = ASSStyleOptions()
        style.enabled = subAss.isOn
        style.override = subAssOverride
        guard !subFont.isEmpty, subFont.count <= ASSStyleOptions.maxFontName,
              subFont.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && $0 != "," }) else {
            throw ValidationError("--sub-font must be a font family name (1 to \(ASSStyleOptions.maxFontName) characters, no commas or control characters)")
        }
        style.font = subFont
        func number(_ value: Double, _ range: ClosedRange<Double>, _ name: String) throws(ValidationError) -> Double {
            guard let v = try? OutsideValue.finite(value, name: name), range.contains(v) else {
                throw ValidationError("--\(name) must be between \(String(cFormat: "%g", range.lowerBound)) and \(String(cFormat: "%g", range.upperBound))")
            }
            return v
        }
        style.fontSize = try number(subFontSize, ASSStyleOptions.fontSizeRange, "sub-font-size")
        style.borderSize = try number(subBorderSize, ASSStyleOptions.borderRange, "sub-border-size")
        style.position = try number(subPos, ASSStyleOptions.positionRange, "sub-pos")
        style.scale = try number(subScale, ASSStyleOptions.scaleRange, "sub-scale")
        guard let color = ASSStyleOptions.parseColor(subColor) else {
            throw ValidationError("--sub-color must be #RRGGBB or #AARRGGBB")
        }
        style.color = color
        return style
    }

    /// Engine options. Only a percentage in `--start`/`--length` needs the duration, so only then
    /// is the source probed before the player opens it.
    func resolvedPlayerOptions() throws -> PlayerOptions {
        let usesPercent = [start, length].contains { time in
            if case .percent = time { return true }
            return false
        }
        guard usesPercent else { return playerOptions(duration: nil) }
        do {
            return playerOptions(duration: try MediaProbe.probe(url: source).duration)
        } catch {
            throw fail("cannot open '\(source)': \(error.message)")
        }
    }

    /// Engine options; `duration` resolves percentages.
    func playerOptions(duration: Double?) -> PlayerOptions {
        var o = PlayerOptions()
        o.streamRecord = streamRecord.flatMap { $0.isEmpty ? nil : Paths.expandingTilde($0, environment: ProcessInfo.processInfo.environment) }
        o.start = start?.resolve(duration: duration) ?? 0
        o.length = length?.resolve(duration: duration)
        o.speed = speed
        o.volume = volume
        o.replayGain = ReplayGainSettings(mode: replaygain, preamp: replaygainPreamp,
                                          clip: replaygainClip.isOn, fallback: replaygainFallback)
        o.skipLoopFilter = skipLoopFilter
        o.decodeThreads = decodeThreads
        o.muted = mute
        o.audioOutput = ao == .null ? .null : .alsa(device: audioDevice)
        o.audioBufferSeconds = audioBuffer
        o.gapless = gaplessAudio
        o.audioChannels = audioChannels
        o.audioFilters = AudioFilterOption.graph(audioFilters)
        (o.audioEnabled, o.audioTrack) = (aid != .no, aid.index)
        (o.subtitlesEnabled, o.subtitleTrack) = (sid != .no, sid.index)
        o.subtitleFiles = subFiles
        o.audioFiles = audioFiles
        o.ytdl.enabled = ytdl.isOn
        o.ytdl.format = ytdlFormat.flatMap { try? YtdlSettings.checkFormat($0) }
        o.ytdl.rawOptions = ytdlRawOptions.flatMap { try? YtdlSettings.parseRawOptions($0) } ?? []
        (o.videoEnabled, o.videoTrack) = (vid != .no, vid.index)
        if live { o.live = true }
        o.timeshiftSeconds = timeshift
        o.timeshiftMemoryBytes = timeshiftMemory << 20
        o.timeshiftDiskBytes = ByteSize.parse(timeshiftDisk) ?? o.timeshiftDiskBytes
        let env = ProcessInfo.processInfo.environment
        o.timeshiftDirectory = Paths.join(Paths.cacheHome(environment: env), "aether-tui")
        o.variantPreference = hlsBitrate
        o.videoRange = videoRange
        o.lavfDASH = demuxerLavfDash
        o.liveStartIndex = liveStartIndex
        network.apply(to: &o.network)
        switch cache {
        case .yes: o.cacheSeconds = cacheSecs
        case .no: o.cacheSeconds = 0
        case .auto: o.cacheSeconds = nil  // the engine decides: network sources only
        }
        o.networkCacheSeconds = cacheSecs
        o.cachePauseWait = cachePauseWait
        o.subtitleCodepage = subCodepage
        o.audioLanguages = alang.map(Self.languageList) ?? []
        o.subtitleLanguages = slang.map(Self.languageList) ?? []
        o.audioDelay = audioDelay
        return o
    }

    static func languageList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// The playlist from the arguments (directories and playlist files expanded), and what was
    /// left out of it. When nothing is left to play (an empty directory, one without media, an
    /// empty playlist file) that is one line and exit status 2, as mpv says a file could not be played.
    func playlist() throws -> (Playlist, [String]) {
        let expanded = PlaylistLoader.expand(sources)
        guard !expanded.items.isEmpty else {
            let why = expanded.warnings.first.map { ": " + $0 + (expanded.warnings.count > 1 ? " (and \(expanded.warnings.count - 1) more)" : "") } ?? ""
            throw fail("nothing to play\(why)", status: .incomplete)
        }
        return (Playlist(expanded.items), expanded.warnings)
    }

    /// How the playlist plays, from the options.
    func controllerSettings(player: PlayerOptions) -> ControllerSettings {
        var c = ControllerSettings()
        c.player = player
        c.startGiven = start != nil
        c.playlistStart = playlistStart
        c.loopFile = loopFile
        c.loopPlaylist = loopPlaylist
        c.shuffle = shuffle
        c.shuffleSeed = shuffleSeed
        c.keepOpen = keepOpen
        // MPRIS's `mpris:artUrl` names a file: written only when MPRIS is on.
        if mpris { c.coverDirectory = Paths.join(Paths.join(Paths.cacheHome(environment: ProcessInfo.processInfo.environment), "aether-tui"), "covers") }
        c.imageDuration = imageDisplayDuration
        c.hrSeek = hrSeek
        c.resume = resumePlayback
        c.savePositionOnQuit = savePositionOnQuit
        if let dir = watchLaterDir { c.watchLater = WatchLater(directory: dir) }
        c.subtitleAutoload = subAuto != .no
        return c
    }

    var remoteOptions: RemoteServices.Options {
        var r = RemoteServices.Options()
        r.ipcServerPath = inputIPCServer
        r.mpris = mpris
        return r
    }
}

/// Options whose values are a type's cases, parsed once by ArgumentParser (a bad value is its
/// one error, naming the values).
extension HRSeek: ExpressibleByArgument {}
extension GaplessMode: ExpressibleByArgument {}
extension KittySharedMemoryUse: ExpressibleByArgument {}
extension ASSStyleOptions.Override: ExpressibleByArgument {}

/// `--vo`: auto or a name the registry has (a bad one is ArgumentParser's error, naming them).
extension VideoDrivers.Choice: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public var defaultValueDescription: String { name }
    public static var allValueStrings: [String] { VideoDrivers.names }
}

/// A yes-or-no option (mpv's spelling of a flag with a value: `--ytdl=no`).
enum YesNo: String, CaseIterable, ExpressibleByArgument {
    case yes, no
    var isOn: Bool { self == .yes }
}

extension ReplayGainMode: ExpressibleByArgument {}

/// `--vo-sixel-dither`: the ditherer's names (`none`, `ordered`, `fs`) and mpv's that mean the same.
extension SixelDither: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
}

/// `--ao`: the ALSA device (through `--audio-device`) or none (no sound, no clock from it).
enum AudioOutputChoice: String, CaseIterable, ExpressibleByArgument {
    case alsa, null
}

/// `--sub-auto` (mpv's values): sidecar subtitles by name (`fuzzy`, `exact`, `all`: the player
/// looks beside the file either way) or none.
enum SubAuto: String, CaseIterable, ExpressibleByArgument {
    case fuzzy, exact, all, no
}

extension SixelRepaint: ExpressibleByArgument {}

/// `--loop-file`, `--loop-playlist`: no, inf (yes) or a count.
extension LoopCount: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String {
        switch self {
        case .no: "no"
        case .infinite: "inf"
        case .times(let n): "\(n)"
        }
    }
}

/// `--image-display-duration`: seconds (0 to a day) or inf.
extension ImageDuration: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String {
        switch self {
        case .forever: "inf"
        case .seconds(let s): String(cFormat: "%g", s)
        }
    }
}

/// `--start`, `--length`: mpv's time syntax (``TimeArgument``).
extension TimeArgument: ExpressibleByArgument {
    init?(argument: String) { self.init(argument) }
}

/// `--aid`, `--sid`, `--vid`: a track by its number (1 = the first of its kind), auto (the
/// player's choice: the languages, the default flag) or no (none of that kind).
enum TrackChoice: ExpressibleByArgument, Equatable {
    case auto, no
    case number(Int)

    init?(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "no": self = .no
        default:
            guard let n = Int(argument), (1...9999).contains(n) else { return nil }
            self = .number(n)
        }
    }

    /// The 0-based track asked for; nil: auto or no.
    var index: Int? { if case .number(let n) = self { n - 1 } else { nil } }
    var defaultValueDescription: String { "auto" }
}

/// `--hls-bitrate`: auto, min, max or a peak bit rate (`700k`, `1.5M`).
extension VariantPreference: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String {
        switch self {
        case .auto: "auto"
        case .min: "min"
        case .max: "max"
        case .atMost(let rate): "\(rate)"
        }
    }
}

extension VideoRangePreference: ExpressibleByArgument {}
extension LoopFilterSkip: ExpressibleByArgument {}

/// `--vo-halfblock-colors`: truecolor (also `24bit`, `rgb`) or 256.
extension CellColorMode: ExpressibleByArgument {
    public init?(argument: String) {
        guard let mode = VideoDrivers.halfBlockColors(option: argument) else { return nil }
        self = mode
    }
}
/// `--vo-cells`: the symbols' names and the plurals and other spellings ``CellSymbols`` takes.
extension CellSymbols: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
}

/// An option that is `auto` (the player decides) or one of `Value`'s (`--vo-sixel-repaint`,
/// `--vo-cells`).
enum AutoOr<Value: ExpressibleByArgument & Equatable>: ExpressibleByArgument, Equatable {
    case auto
    case value(Value)

    init?(argument: String) {
        if argument == "auto" { self = .auto; return }
        guard let value = Value(argument: argument) else { return nil }
        self = .value(value)
    }

    /// The value asked for; nil: auto.
    var value: Value? { if case .value(let v) = self { v } else { nil } }
    var defaultValueDescription: String { "auto" }
    static var allValueStrings: [String] { ["auto"] + Value.allValueStrings }
}

/// `--cache`: the demuxer cache for network sources only (auto), always, or never.
enum CacheChoice: String, CaseIterable, ExpressibleByArgument {
    case auto, yes, no
}

extension AudioChannels: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String { option }
}

/// `--af`: libavfilter's syntax, or mpv's `lavfi=[graph]` and `lavfi-NAME` forms of it.
enum AudioFilterOption {
    /// The libavfilter graph `option` names ("" for none).
    static func graph(_ option: String) -> String {
        var text = option.trimmingWhitespace()
        if text.hasPrefix("lavfi=[") && text.hasSuffix("]") { text = String(text.dropFirst(7).dropLast()) }
        return text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("lavfi-") ? String($0.dropFirst(6)) : String($0) }
            .joined(separator: ",")
    }

    /// nil when the filters build (or there are none), else why not, in one line.
    static func check(_ option: String) -> String? {
        let graph = graph(option)
        guard !graph.isEmpty else { return nil }
        guard graph.utf8.count <= 4096 else { return "longer than 4096 bytes" }
        return FilterGraph.checkAudio(graph).map { "cannot use '\(TextSanitizer.clean(graph))': \($0)" }
    }
}
