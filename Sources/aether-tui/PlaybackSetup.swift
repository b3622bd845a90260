import AetherControl
import AetherEngine
import AetherInput
import ArgumentParser
import TerminalGraphics
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What the playback options make, once, for the TUI and headless hosts alike: the engine's
/// options, the playlist and how it plays, the key bindings, the remote services, and what was
/// left out on the way (said on stderr as it is found, and kept for the message line).
struct PlaybackSetup {
    var player: PlayerOptions
    var controller: ControllerSettings
    var playlist: Playlist
    var bindings: InputBindings
    var remote: RemoteServices.Options
    /// What input.conf and the playlist left out, in that order.
    var warnings: [String]

    /// The setup of `options`: `warn` hears each warning as it is found (before a later step
    /// can fail). Throws the one-line failures (`cannot open`, `nothing to play`). `clock` is the
    /// player's (``PlayerOptions/time``).
    init(_ options: PlaybackOptions, environment: [String: String], clock: TimeSource, warn: (String) -> Void) throws(CommandFailure) {
        player = try Self.resolvedPlayerOptions(options, clock: clock)
        var equalizerWarnings: [String] = []
        // The equalizer kept for this device wins over the config file's; the command line's
        // over both.
        var equalizer = options.equalizer
        if !ConfigArguments.typedGives("--equalizer"),
           let kept = EqualizerMemory(path: EqualizerMemory.defaultPath(environment: environment)).choice(for: player.audio.output.name) {
            equalizer = .choice(kept)
        }
        player.playing.equalizer = equalizer.resolved(environment: environment) { line in
            warn(line)
            equalizerWarnings.append(line)
        }
        // No keyboard headless, but IPC `keypress` goes through the bindings, and a broken
        // input.conf is said at once, as in the TUI.
        let (bindings, bindingWarnings) = Self.bindings(options, environment: environment)
        bindingWarnings.forEach(warn)
        let (playlist, playlistWarnings) = try Self.playlist(options)
        playlistWarnings.forEach(warn)
        (self.bindings, self.playlist, warnings) = (bindings, playlist, equalizerWarnings + bindingWarnings + playlistWarnings)
        controller = Self.controllerSettings(options, player: player)
        remote = Self.remoteOptions(options)
    }

    /// `--sub-ass` and the `--sub-*` style options, checked: out-of-range numbers, NaN,
    /// colours that are not hex and font names with control characters are refused.
    static func subtitleStyle(_ options: PlaybackOptions) throws(ValidationError) -> ASSStyleOptions {
        var style = ASSStyleOptions()
        style.enabled = options.subAss.isOn
        style.override = options.subAssOverride
        guard !options.subFont.isEmpty, options.subFont.count <= ASSStyleOptions.maxFontName,
              options.subFont.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && $0 != "," }) else {
            throw ValidationError("--sub-font must be a font family name (1 to \(ASSStyleOptions.maxFontName) characters, no commas or control characters)")
        }
        style.font = options.subFont
        func number(_ value: Double, _ range: ClosedRange<Double>, _ name: String) throws(ValidationError) -> Double {
            guard let v = try? OutsideValue.finite(value, name: name), range.contains(v) else {
                throw ValidationError("--\(name) must be between \(String(cFormat: "%g", range.lowerBound)) and \(String(cFormat: "%g", range.upperBound))")
            }
            return v
        }
        style.fontSize = try number(options.subFontSize, ASSStyleOptions.fontSizeRange, "sub-font-size")
        style.borderSize = try number(options.subBorderSize, ASSStyleOptions.borderRange, "sub-border-size")
        style.position = try number(options.subPos, ASSStyleOptions.positionRange, "sub-pos")
        style.scale = try number(options.subScale, ASSStyleOptions.scaleRange, "sub-scale")
        guard let color = ASSStyleOptions.parseColor(options.subColor) else {
            throw ValidationError("--sub-color must be #RRGGBB or #AARRGGBB")
        }
        style.color = color
        return style
    }

    /// Engine options. Only a time that depends on the source (a percentage, a time before the
    /// end, a chapter) in `--start`, `--end` or `--length` needs its duration or chapters, so
    /// only then is the source probed before the player opens it.
    static func resolvedPlayerOptions(_ options: PlaybackOptions, clock: TimeSource) throws(CommandFailure) -> PlayerOptions {
        let unresolved = playerOptions(options, duration: nil, clock: clock)
        guard [options.start, options.end, options.length].contains(where: { $0?.needsSource == true }) else { return unresolved }
        do {
            let info = try MediaProbe.probe(url: options.source, network: unresolved.network, clock: clock)
            return playerOptions(options, duration: info.duration, chapters: info.chapters.map(\.start), clock: clock)
        } catch {
            throw .failed("cannot open '\(options.source)': \(error.message)")
        }
    }

    /// Engine options; `duration` and `chapters` resolve the times that depend on them. With
    /// both `--end` and `--length`, playback stops at the earlier (mpv's rule).
    static func playerOptions(_ options: PlaybackOptions, duration: Double?, chapters: [Double] = [], clock: TimeSource) -> PlayerOptions {
        var o = PlayerOptions(time: clock)
        o.streamRecord = options.streamRecord.flatMap { $0.isEmpty ? nil : Paths.expandingTilde($0, environment: ProcessInfo.processInfo.environment) }
        o.start = options.start?.resolve(duration: duration, chapters: chapters) ?? 0
        o.length = options.length?.resolve(duration: duration, chapters: chapters)
        if let end = options.end?.resolve(duration: duration, chapters: chapters) {
            o.length = min(o.length ?? .infinity, max(0, end - o.start))
        }
        o.playing.rate = options.speed
        o.playing.volume = options.volume
        o.audio.replayGain = ReplayGainSettings(mode: options.replaygain, preamp: options.replaygainPreamp,
                                          clip: options.replaygainClip.isOn, fallback: options.replaygainFallback)
        o.video.skipLoopFilter = options.skipLoopFilter
        o.video.decodeThreads = options.decodeThreads
        o.playing.muted = options.mute
        o.audio.output = options.ao == .null ? .null : .alsa(device: options.audioDevice)
        o.audio.bufferSeconds = options.audioBuffer
        o.audio.gapless = options.gaplessAudio
        o.audio.channels = options.audioChannels
        o.audio.filters = AudioFilterOption.graph(options.audioFilters)
        (o.audio.enabled, o.audio.track) = (options.aid != .no, options.aid.index)
        (o.subtitles.enabled, o.subtitles.track) = (options.sid != .no, options.sid.index)
        o.subtitles.files = options.subFiles
        o.audio.files = options.audioFiles
        o.ytdl.enabled = options.ytdl.isOn
        o.ytdl.format = options.ytdlFormat.flatMap { try? YtdlSettings.checkFormat($0) }
        o.ytdl.rawOptions = options.ytdlRawOptions.flatMap { try? YtdlSettings.parseRawOptions($0) } ?? []
        (o.video.enabled, o.video.track) = (options.vid != .no, options.vid.index)
        if options.live { o.stream.live = true }
        o.timeshift.seconds = options.timeshift
        o.timeshift.memoryBytes = options.timeshiftMemory << 20
        o.timeshift.diskBytes = options.timeshiftDisk.bytes
        let env = ProcessInfo.processInfo.environment
        o.timeshift.directory = Paths.join(Paths.cacheHome(environment: env), "aether-tui")
        o.stream.variantPreference = options.hlsBitrate
        o.stream.videoRange = options.videoRange
        o.stream.lavfDASH = options.demuxerLavfDash
        o.stream.liveStartIndex = options.liveStartIndex
        o.stream.discTitle = options.edition.number
        options.network.apply(to: &o.network)
        switch options.cache {
        case .yes: o.stream.cacheSeconds = options.cacheSecs
        case .no: o.stream.cacheSeconds = 0
        case .auto: o.stream.cacheSeconds = nil  // the engine decides: network sources only
        }
        o.stream.networkCacheSeconds = options.cacheSecs
        o.stream.cachePauseWait = options.cachePauseWait
        o.subtitles.codepage = options.subCodepage
        o.audio.languages = options.alang.map(Self.languageList) ?? []
        o.subtitles.languages = options.slang.map(Self.languageList) ?? []
        o.playing.audioDelay = options.audioDelay
        return o
    }

    static func languageList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// The playlist from the arguments (directories and playlist files expanded), and what was
    /// left out of it. When nothing is left to play (an empty directory, one without media, an
    /// empty playlist file) that is one line and exit status 2, as mpv says a file could not be played.
    static func playlist(_ options: PlaybackOptions) throws(CommandFailure) -> (Playlist, [String]) {
        let expanded = PlaylistLoader.expand(options.sources)
        guard !expanded.items.isEmpty else {
            let why = expanded.warnings.first.map { ": " + $0 + (expanded.warnings.count > 1 ? " (and \(expanded.warnings.count - 1) more)" : "") } ?? ""
            throw .incomplete("nothing to play\(why)")
        }
        return (Playlist(expanded.items), expanded.warnings)
    }

    /// How the playlist plays, from the options.
    static func controllerSettings(_ options: PlaybackOptions, player: PlayerOptions) -> ControllerSettings {
        var c = ControllerSettings(player: player)
        c.startGiven = options.start != nil
        c.playlistStart = options.playlistStart
        c.loopFile = options.loopFile
        c.loopPlaylist = options.loopPlaylist
        c.abLoop = ABLoop(a: options.abLoopA?.seconds, b: options.abLoopB?.seconds, count: options.abLoopCount)
        c.shuffle = options.shuffle
        c.shuffleSeed = options.shuffleSeed
        c.keepOpen = options.keepOpen
        c.equalizerMemory = EqualizerMemory(path: EqualizerMemory.defaultPath(environment: ProcessInfo.processInfo.environment))
        // MPRIS's `mpris:artUrl` names a file: written only when MPRIS is on.
        if options.mpris { c.coverDirectory = Paths.join(Paths.join(Paths.cacheHome(environment: ProcessInfo.processInfo.environment), "aether-tui"), "covers") }
        c.imageDuration = options.imageDisplayDuration
        c.hrSeek = options.hrSeek
        c.chapterSeekThreshold = options.chapterSeekThreshold
        c.resume = options.resumePlayback
        c.savePositionOnQuit = options.savePositionOnQuit
        if let dir = options.watchLaterDir { c.watchLater = WatchLater(directory: dir) }
        c.subtitleAutoload = options.subAuto != .no
        return c
    }

    static func remoteOptions(_ options: PlaybackOptions) -> RemoteServices.Options {
        var r = RemoteServices.Options()
        r.ipcServerPath = options.inputIPCServer
        r.mpris = options.mpris
        return r
    }

    /// The key bindings: the defaults, with `--input-conf` (or input.conf in the config
    /// directory, unless `--no-config`) over them; bad lines come back as warnings.
    static func bindings(_ options: PlaybackOptions, environment: [String: String]) -> (InputBindings, [String]) {
        let path: String
        if let inputConf = options.inputConf { path = inputConf } else {
            guard !options.noConfig else { return (InputBindings(), []) }
            path = Paths.join(options.configDir ?? ConfigFile.directory(environment: environment), "input.conf")
        }
        guard let loaded = InputBindings.load(path: path) else {
            return (InputBindings(), options.inputConf == nil ? [] : ["cannot read '\(TextSanitizer.clean(path))'"])
        }
        return loaded
    }
}
