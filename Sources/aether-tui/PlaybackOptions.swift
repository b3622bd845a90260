import AetherControl
import AetherEngine
import TerminalGraphics
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Options shared by playback in the TUI and headless (`--vo=null`) modes, named as mpv names them.
///
/// It only declares: its body is its option list (and `validate()`, which ArgumentParser runs),
/// so it has many more than 15 stored properties, one per command-line option; grouping them
/// would only rename mpv's options. What they make, the engine's, the controller's and the
/// screen's settings, is ``PlaybackSetup``.
struct PlaybackOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Media files, URLs libavformat can open, directories (their media files, in natural order) and .m3u/.m3u8/.pls playlists, played in order.", valueName: "file|url|dir|playlist"), completion: .file())
    var sources: [String] = []

    /// The first item (what `--start=N%` is measured against).
    var source: String { sources.first ?? "" }

    @Option(help: ArgumentHelp("Video output: auto (measured: of what the terminal can show, the output that shows the most detail at the source frame rate, remembered per terminal in $XDG_STATE_HOME/aether-tui/terminals.json), "
                               + VideoDrivers.all.map { "\($0.name) (\($0.summary))" }.joined(separator: ", ") + ".",
                               valueName: VideoDrivers.names.joined(separator: "|")))
    var vo: VideoDrivers.Choice = .auto

    @Option(help: ArgumentHelp("Audio output: alsa or null (silent, still paced in real time).", valueName: "alsa|null"))
    var ao: AudioOutputChoice = .alsa

    @Option(name: .customLong("audio-device"), help: ArgumentHelp("ALSA device to play through; help lists them.", valueName: "name|help"))
    var audioDevice: String = "default"

    @Option(name: .customLong("audio-buffer"), help: ArgumentHelp("Seconds of sound the ALSA device holds ahead, 0.02 to 10 (as mpv): more rides out a busy processor, less answers the volume sooner.", valueName: "seconds"))
    var audioBuffer: Double = 0.2

    @Option(name: .customLong("gapless-audio"), help: ArgumentHelp("Play a playlist's items of sound without a gap: yes (the next item continues the device, converted to its format when they differ), weak (when rate and channels match) or no (every item drains the device first).", valueName: "no|yes|weak"))
    var gaplessAudio: GaplessMode = .weak

    @Option(name: .customLong("audio-channels"), help: ArgumentHelp("Channels the sound is converted to and the device asked for: auto-safe (the source's, at most two), auto (the source's, at most eight), mono, stereo, 5.1, 7.1 or a count 1-8.", valueName: "channels"))
    var audioChannels: AudioChannels = .autoSafe

    @Option(help: ArgumentHelp("Equalizer: flat (none), a preset (help lists them with their curves), bands:G1,…,G10 (ten bands at 31.5 Hz … 16 kHz, ±12 dB) or a parametric profile file in Equalizer APO's and AutoEq's form (Preamp: and Filter lines). Its preamp is lowered so that no frequency gains.", valueName: "name|bands:…|path"),
            completion: .shellCommand("\(PlayerIdentity.name) --equalizer=help 2>/dev/null | sed -n 's/^  \\([a-z]*\\).*/\\1/p'"),
            transform: { (text: String) throws -> EqualizerOption in
                if text == "help" { return EqualizerOption.help }
                do throws(OutsideValue.Refusal) {
                    return EqualizerOption.choice(try EqualizerChoice(parsing: text))
                } catch { throw ValidationError(error.message) }
            })
    var equalizer: EqualizerOption = .choice(.flat)

    @Option(name: .customLong("af"), help: ArgumentHelp("Audio filters, in libavfilter's syntax (loudnorm, volume=0.5, highpass=f=200,lowpass=f=3000), before the speed and the resampler; mpv's lavfi=[...] form works too.", valueName: "filters"))
    var audioFilters: String = ""

    @Option(help: ArgumentHelp("The terminal's title while playing, with mpv's property expansion (${media-title}, ${filename}, ${?pause==yes:...}); empty leaves the title alone. The title before is given back on exit.", valueName: "text"))
    var title: String = PlayerIdentity.defaultTitle

    @Option(help: ArgumentHelp("Start position: seconds or [[hh:]mm:]ss[.ms]; -time counts from the end, N% of the duration, #c the start of chapter c (the first is 1), as mpv's.", valueName: "time"))
    var start: TimeArgument?

    @Option(help: ArgumentHelp("Stop at this position (the times --start takes); with --length too, at the earlier.", valueName: "time"))
    var end: TimeArgument?

    @Option(help: ArgumentHelp("Play at most this long from the start position.", valueName: "time"))
    var length: TimeArgument?

    @Option(help: ArgumentHelp("Playback speed, 0.25 to 4 (pitch kept).", valueName: "x"))
    var speed: Double = 1

    @Option(help: ArgumentHelp("Audio track: its number (1 = first audio track), auto, or no. As in mpv, --audio is another name for it and --no-audio is --aid=no.", valueName: "n|auto|no"))
    var aid: TrackChoice = .auto

    @Option(help: ArgumentHelp("Subtitle track: its number (1 = first subtitle track), auto, or no. As in mpv, --sub is another name for it and --no-sub is --sid=no.", valueName: "n|auto|no"))
    var sid: TrackChoice = .auto

    @Option(help: ArgumentHelp("Video track (1 = the first), auto, or no to decode no video at all and show the music view (cover art, tags, spectrum) instead. As in mpv, --video is another name for it and --no-video is --vid=no.", valueName: "N|auto|no"))
    var vid: TrackChoice = .auto

    @Option(name: .customLong("sub-file"), help: ArgumentHelp("Load a subtitle file as an extra track (repeatable).", valueName: "path"), completion: .file())
    var subFiles: [String] = []

    @Option(name: .customLong("audio-file"), help: ArgumentHelp("Play this file's audio with the main file's picture, as an extra audio track chosen by default (repeatable; a path or an http(s) URL).", valueName: "path|URL"), completion: .file())
    var audioFiles: [String] = []

    @Option(help: ArgumentHelp("An http(s) URL that is not media (a web page) is read by yt-dlp, and what it finds plays; no tries the URL as media only.", valueName: "yes|no"))
    var ytdl: YesNo = .yes

    @Option(name: .customLong("ytdl-format"), help: ArgumentHelp("yt-dlp's format choice (its -f), e.g. bestvideo+bestaudio; separate video and audio play together.", valueName: "format"))
    var ytdlFormat: String?

    @Option(name: .customLong("ytdl-raw-options"), help: ArgumentHelp("More yt-dlp options as key=value,flag= (each passes yt-dlp its option KEY with VALUE); options that run programs or write files are refused.", valueName: "k=v,..."))
    var ytdlRawOptions: String?

    @Option(name: .customLong("sub-codepage"), help: ArgumentHelp("Code page of subtitle files that are not UTF-8.", valueName: "codepage"))
    var subCodepage: String = "CP1252"

    @Option(name: .customLong("sub-ass"), help: ArgumentHelp("Draw text subtitles with libass, as their script styles and places them, in pixel outputs (sixel, kitty); no keeps them as text cells.", valueName: "yes|no"))
    var subAss: YesNo = .yes

    @Option(name: .customLong("sub-font"), help: ArgumentHelp("Font family for subtitles that are not ASS (SubRip, WebVTT, mov_text) drawn by libass.", valueName: "family"))
    var subFont: String = "sans-serif"

    @Option(name: .customLong("sub-font-size"), help: ArgumentHelp("Their font size in pixels of a 720-line picture, 1 to 9000.", valueName: "size"))
    var subFontSize: Double = 55

    @Option(name: .customLong("sub-color"), help: ArgumentHelp("Their colour as #RRGGBB or #AARRGGBB.", valueName: "color"))
    var subColor: String = "#FFFFFF"

    @Option(name: .customLong("sub-border-size"), help: ArgumentHelp("Their outline in pixels of a 720-line picture, 0 to 100.", valueName: "size"))
    var subBorderSize: Double = 3

    @Option(name: .customLong("sub-pos"), help: ArgumentHelp("Where the bottom subtitle line sits, percent of the picture's height from the top, 0 to 150 (100 is the bottom; above 100 is taken as 100).", valueName: "percent"))
    var subPos: Double = 100

    @Option(name: .customLong("sub-scale"), help: ArgumentHelp("Scale subtitle text by this factor, 0 to 100.", valueName: "factor"))
    var subScale: Double = 1

    @Option(name: .customLong("sub-ass-override"), help: ArgumentHelp("ASS scripts: yes applies --sub-scale and --sub-pos to dialogue, force also gives dialogue the style of --sub-font, --sub-font-size, --sub-color and --sub-border-size, no draws the script as authored.", valueName: "yes|force|no"))
    var subAssOverride: ASSStyleOptions.Override = .yes

    @Option(help: ArgumentHelp("Volume in percent, 0 to 130.", valueName: "percent"))
    var volume: Double = 100

    @Flag(inversion: .prefixedNo, help: "Start muted.")
    var mute = false

    @Option(help: ArgumentHelp("Loudness by the file's tags (ReplayGain: ID3, Vorbis comments, APE, MP4; Opus R128): track, album (the track's where there is no album gain) or no.", valueName: "no|track|album"))
    var replaygain: ReplayGainMode = .no

    @Option(name: .customLong("replaygain-preamp"), help: ArgumentHelp("dB added to the ReplayGain gain, -150 to 150.", valueName: "db"))
    var replaygainPreamp: Double = 0

    @Option(name: .customLong("replaygain-clip"), help: ArgumentHelp("yes lets the ReplayGain gain clip; no holds it where the peak tag reaches full scale.", valueName: "yes|no"))
    var replaygainClip: YesNo = .no

    @Option(name: .customLong("replaygain-fallback"), help: ArgumentHelp("dB applied, alone, to a file without the ReplayGain tags --replaygain needs, -200 to 60.", valueName: "db"))
    var replaygainFallback: Double = 0

    @Flag(inversion: .prefixedNo, help: "Start paused (the first frame is shown).")
    var pause = false

    @OptionGroup var network: NetworkOptions

    @Option(name: .customLong("hls-bitrate"), help: ArgumentHelp("HLS and DASH variant: auto (switch between the variants as the measured throughput and the buffer allow, at segment boundaries; HLS and DASH, VOD and live (live: matched by media sequence number or date), also with separate audio renditions (the video switches, the --alang rendition plays on) and byte-range variants; where a variant cannot switch the start choice stays), or a fixed choice: min, max, or a peak bit rate cap in bits/s (700000, 700k, 1.5M: the highest variant at or under it, else the lowest; other variants are never fetched).", valueName: "auto|min|max|rate"))
    var hlsBitrate: VariantPreference = .auto

    @Option(name: .customLong("video-range"), help: ArgumentHelp("HLS and DASH: prefer SDR or HDR variants; auto prefers SDR (what a terminal shows).", valueName: "auto|sdr|hdr"))
    var videoRange: VideoRangePreference = .auto

    @Flag(name: .customLong("demuxer-lavf-dash"), help: "Kept for old configs, with a warning: a remote DASH manifest always plays through the player's reader (libavformat's dash demuxer would fetch its fragments over its own HTTP, which the player does not use); a local .mpd is libavformat's anyway.")
    var demuxerLavfDash = false

    @Flag(help: "Treat the source as live (a stream without end), whatever it says.")
    var live = false

    @Option(help: ArgumentHelp("The title of a DVD or Blu-ray (an image, a folder holding VIDEO_TS or BDMV, or that folder) to play, as the player numbers them ('aether-tui probe' lists them; auto: the longest).", valueName: "n|auto"))
    var edition = TitleArgument.auto

    @Option(name: .customLong("live-start-index"), help: ArgumentHelp("Where a live HLS or DASH stream starts, in segments: negative counts back from the live edge (-3: three segments behind it), 0 or more from the first segment listed (libavformat's HLS live_start_index).", valueName: "n"))
    var liveStartIndex: Int = -3

    @Option(help: ArgumentHelp("Seconds of a live stream kept for pause, rewind and scrubbing (0: none). The window lives in memory up to --timeshift-memory, then in files under $XDG_CACHE_HOME/aether-tui/, deleted on exit.", valueName: "seconds"))
    var timeshift: Double = 1800

    @Option(name: .customLong("timeshift-memory"), help: ArgumentHelp("MiB of the timeshift window kept in memory.", valueName: "MiB"))
    var timeshiftMemory: Int = 64

    @Option(name: .customLong("timeshift-disk"), help: ArgumentHelp("Most of the timeshift window kept on disk (512M, 2G, 1.5GiB; never more than a quarter of the free space there). The oldest part is dropped past it, whatever the stream's timestamps do.", valueName: "size"))
    var timeshiftDisk = SizeArgument(bytes: 1 << 30)

    @Option(help: ArgumentHelp("Demuxer cache: auto (network sources only), yes or no.", valueName: "auto|yes|no"))
    var cache: CacheChoice = .auto

    @Option(name: .customLong("cache-secs"), help: ArgumentHelp("Seconds the demuxer reads ahead when the cache is on.", valueName: "seconds"))
    var cacheSecs: Double = 30

    @Option(name: .customLong("cache-pause-wait"), help: ArgumentHelp("Seconds buffered before playback goes on after the cache ran dry.", valueName: "seconds"))
    var cachePauseWait: Double = 1

    @Option(help: ArgumentHelp("Colour theme: a name (help lists them: the built-in default, the .theme files beside the program and in $XDG_CONFIG_HOME/aether-tui/themes) or a path to a .theme file. Without it: light on a terminal whose background is light (OSC 11), else default.", valueName: "name|path|help"),
            completion: .shellCommand("\(PlayerIdentity.name) --theme=help 2>/dev/null | sed -n 's/^  //p'"))
    var theme: String?

    @Option(name: .customLong("vo-sixel-colors"), help: ArgumentHelp("Sixel palette size, 2 to 256 (default: the terminal's colour registers).", valueName: "n"))
    var sixelColors: Int?

    @Option(name: .customLong("vo-sixel-dither"), help: ArgumentHelp("Sixel dithering: none (fewest bytes), ordered, or fs (Floyd–Steinberg).", valueName: "none|ordered|fs"))
    var sixelDither: SixelDither = .none

    @Option(name: .customLong("vo-sixel-repaint"), help: ArgumentHelp("What each sixel frame paints: changed (only the pixels that changed, fewest bytes; right only where the terminal keeps the earlier picture under them), full (the whole picture), or auto (changed on xterm and foot, else full).", valueName: "auto|changed|full"))
    var sixelRepaint: AutoOr<SixelRepaint> = .auto

    @Option(name: .customLong("vo-kitty-use-shm"), help: ArgumentHelp("kitty frames through POSIX shared memory (only the object's name goes through the tty): auto (when the terminal is on this machine, not over SSH, and answered the probe's shared memory query, through tmux's passthrough inside tmux), yes, or no (base64 through the tty).", valueName: "auto|yes|no"))
    var kittyUseShm: KittySharedMemoryUse = .auto

    @Option(name: .customLong("vo-governor"), help: ArgumentHelp("Step picture quality down when the terminal cannot keep up (sixel colours, picture scale, every 2nd frame, half-block), straight to fewer frames when the source cannot, and back up when it can: yes, or no to pin the settings.", valueName: "yes|no"))
    var voGovernor: YesNo = .yes

    @Option(name: .customLong("vd-lavc-skiploopfilter"), help: ArgumentHelp("H.264/HEVC frames decoded without the loop filter: none, default, nonref, bidir, nonkey or all (default: all when each pixel shown averages 64 or more of the source's, bidir when the picture is 4× or more smaller than the source, else default: every frame filtered).", valueName: "level"))
    var skipLoopFilter: LoopFilterSkip?

    @Option(name: .customLong("vd-lavc-threads"), help: ArgumentHelp("Video decoder threads, 1 to 16, or 0: automatic (one thread up to 1080p30, more at the next keyframe if one cannot keep up; larger sources one per core).", valueName: "N"))
    var decodeThreads: Int = 0

    @Option(name: .customLong("vo-halfblock-colors"), help: ArgumentHelp("Cell output colours (halfblock and cells): truecolor or 256 (default: what the terminal supports).", valueName: "truecolor|256"))
    var halfBlockColors: CellColorMode?

    @Option(name: .customLong("vo-cells"), help: ArgumentHelp("Pixels per cell for --vo=cells: octant (2x4, Unicode 16), sextant (2x3), quadrant (2x2) or half (1x2), or auto (the finest the terminal draws itself).", valueName: "auto|octant|sextant|quadrant|half"))
    var voCells: AutoOr<CellSymbols> = .auto

    @Option(name: .customLong("vo-cells-tolerance"), help: ArgumentHelp("Cell outputs leave a cell alone unless redrawing it lowers its RMS error per pixel by more than this many levels, and draw a cell with the colours already set where they are within it (0-64; 0 draws every change exactly). The governor raises it when the terminal falls behind.", valueName: "levels"))
    var voCellsTolerance: Double = CellDriver.defaultTolerance

    @Option(name: .customLong("stats-file"), help: ArgumentHelp("Write telemetry as JSON lines at 1 Hz, plus a final summary line.", valueName: "path"), completion: .file())
    var statsFile: String?

    @Option(name: .customLong("playlist-start"), help: ArgumentHelp("Start with this playlist item (0 = the first).", valueName: "n"))
    var playlistStart: Int = 0

    @Option(name: .customLong("loop-file"), help: ArgumentHelp("Play each item N more times, inf for ever, or no. A bare --loop-file is inf; --loop is the same option, as in mpv.", valueName: "N|inf|no"))
    var loopFile: LoopCount = .no

    @Option(name: .customLong("loop-playlist"), help: ArgumentHelp("Play the playlist N more times, inf for ever, or no. A bare --loop-playlist is inf.", valueName: "N|inf|no"))
    var loopPlaylist: LoopCount = .no

    @Option(name: .customLong("ab-loop-a"), help: ArgumentHelp("A-B loop start: playback that passes B goes back here (unset: the start). The l key sets A, then B, then clears them.", valueName: "time|no"))
    var abLoopA: ABLoopPoint?

    @Option(name: .customLong("ab-loop-b"), help: ArgumentHelp("A-B loop end (unset: the end). Seeking past it does not loop, as in mpv.", valueName: "time|no"))
    var abLoopB: ABLoopPoint?

    @Option(name: .customLong("ab-loop-count"), help: ArgumentHelp("A-B loops to run, then the points are ignored.", valueName: "N|inf"))
    var abLoopCount: LoopCount = .infinite

    @Flag(inversion: .prefixedNo, help: "Play the playlist in random order.")
    var shuffle = false

    @Option(name: .customLong("shuffle-seed"), help: ArgumentHelp("Seed for --shuffle (the same seed, the same order).", valueName: "n"))
    var shuffleSeed: UInt64?

    @Option(name: .customLong("hr-seek"), help: ArgumentHelp("Which seeks decode to the exact time asked for: absolute (absolute seeks, while relative ones go to a keyframe, forward to the first at or after the target), yes (every seek) or no (only a seek command's exact flag).", valueName: "no|absolute|yes"))
    var hrSeek: HRSeek = .absolute

    @Option(name: .customLong("chapter-seek-threshold"), help: ArgumentHelp("Going back a chapter (PgUp, !) within this many seconds of the chapter's start goes to the chapter before; further in, it restarts the chapter (mpv's option; default 5).", valueName: "seconds"))
    var chapterSeekThreshold: Double = 5

    @Option(name: .customLong("image-display-duration"), help: ArgumentHelp("Seconds an image (JPEG, PNG, WebP …) stays before the playlist moves on, or inf to keep it until you move on, as mpv's.", valueName: "seconds|inf"))
    var imageDisplayDuration: ImageDuration = .seconds(1)

    @Option(name: .customLong("stream-record"), help: ArgumentHelp("Write what is played, as received (its packets, not decoded), to this file, overwritten by each item; its extension names the format (.mkv keeps a radio station's songs as chapters, .mp3, .ogg, .ts …). The stream-record property starts and stops it.", valueName: "file"), completion: .file())
    var streamRecord: String?

    @Flag(name: .customLong("keep-open"), inversion: .prefixedNo, help: "At the end of the last item stay on its last frame, paused, instead of quitting.")
    var keepOpen = false

    @Flag(name: .customLong("resume-playback"), inversion: .prefixedNo,
          help: "Resume where Q (quit-watch-later) left a file, with its tracks, volume and speed.")
    var resumePlayback = true

    @Flag(name: .customLong("save-position-on-quit"), inversion: .prefixedNo, help: "Save the position on every quit, not only Q.")
    var savePositionOnQuit = false

    @Option(name: .customLong("watch-later-dir"), help: ArgumentHelp("Where positions are saved (default: $XDG_STATE_HOME/aether-tui/watch_later).", valueName: "path"), completion: .directory)
    var watchLaterDir: String?

    @Option(help: ArgumentHelp("Preferred audio languages, most wanted first (e.g. jpn,eng).", valueName: "list"))
    var alang: String?

    @Option(help: ArgumentHelp("Preferred subtitle languages, most wanted first (e.g. eng,fra).", valueName: "list"))
    var slang: String?

    @Option(name: .customLong("sub-delay"), help: ArgumentHelp("Show subtitles this many seconds later (negative: earlier).", valueName: "seconds"))
    var subDelay: Double = 0

    @Option(name: .customLong("audio-delay"), help: ArgumentHelp("Play the sound this many seconds later than the picture (negative: earlier).", valueName: "seconds"))
    var audioDelay: Double = 0

    @Option(name: .customLong("sub-auto"), help: ArgumentHelp("Load subtitle files found next to the media (movie.srt, movie.en.ass): fuzzy, exact, or no.", valueName: "fuzzy|exact|no"))
    var subAuto: SubAuto = .fuzzy

    @Option(name: .customLong("input-ipc-server"), help: ArgumentHelp("Listen for mpv-style JSON IPC commands on this Unix socket (mode 0600).", valueName: "path"), completion: .file())
    var inputIPCServer: String?

    @Flag(name: .customLong("mpris"), inversion: .prefixedNo, help: "Offer media-key control (MPRIS) on the D-Bus session bus when there is one.")
    var mpris = true

    @Option(name: .customLong("input-conf"), help: ArgumentHelp("Key bindings file (default: input.conf in the config directory).", valueName: "path"), completion: .file())
    var inputConf: String?

    @Option(help: ArgumentHelp("Apply these [profile] sections of the config file (comma-separated).", valueName: "name"))
    var profile: String?

    @Option(name: .customLong("config-dir"), help: ArgumentHelp("Read aether-tui.conf and input.conf from here (default: $XDG_CONFIG_HOME/aether-tui).", valueName: "path"), completion: .directory)
    var configDir: String?

    @Flag(name: .customLong("no-config"), help: "Read no config file or input.conf.")
    var noConfig = false

    @Option(name: .customLong("screenshot-directory"), help: ArgumentHelp("Where s and S save screenshots (default: $XDG_PICTURES_DIR, else the current directory).", valueName: "path"), completion: .directory)
    var screenshotDirectory: String?

    func validate() throws(ValidationError) {
        guard !sources.isEmpty || audioDevice == "help" || theme == "help" || equalizer == .help else { throw ValidationError("no file given (aether-tui FILE…; aether-tui --help)") }
        guard playlistStart >= 0 else { throw ValidationError("--playlist-start must be 0 or more") }
        _ = try PlaybackSetup.subtitleStyle(self)
        guard subDelay.isFinite, abs(subDelay) <= 600 else { throw ValidationError("--sub-delay must be between -600 and 600 seconds") }
        guard audioDelay.isFinite, abs(audioDelay) <= 10 else {
            throw ValidationError("--audio-delay must be between -10 and 10 seconds")
        }
        guard (0.25...4).contains(speed) else { throw ValidationError("--speed must be between 0.25 and 4") }
        if let why = AudioFilterOption.check(audioFilters) { throw ValidationError("--af: \(why)") }
        guard (0.02...10).contains(audioBuffer) else { throw ValidationError("--audio-buffer must be between 0.02 and 10") }
        guard (0...130).contains(volume) else { throw ValidationError("--volume must be between 0 and 130") }
        guard (-150...150).contains(replaygainPreamp) else { throw ValidationError("--replaygain-preamp must be between -150 and 150") }
        guard (-200...60).contains(replaygainFallback) else { throw ValidationError("--replaygain-fallback must be between -200 and 60") }
        if let n = sixelColors, !(2...256).contains(n) { throw ValidationError("--vo-sixel-colors must be between 2 and 256") }
        guard (0...16).contains(decodeThreads) else { throw ValidationError("--vd-lavc-threads must be between 0 and 16") }
        guard voCellsTolerance.isFinite, (0...64).contains(voCellsTolerance) else {
            throw ValidationError("--vo-cells-tolerance must be between 0 and 64")
        }
        if let ytdlFormat {
            do { _ = try YtdlSettings.checkFormat(ytdlFormat) } catch { throw ValidationError(error.message) }
        }
        if let ytdlRawOptions {
            do { _ = try YtdlSettings.parseRawOptions(ytdlRawOptions) } catch { throw ValidationError(error.message) }
        }
        guard (-100_000...100_000).contains(liveStartIndex) else { throw ValidationError("--live-start-index must be in -100000…100000") }
        guard timeshift.isFinite, (0...604_800).contains(timeshift) else { throw ValidationError("--timeshift must be between 0 and 604800 seconds (a week)") }
        guard (1...65536).contains(timeshiftMemory) else { throw ValidationError("--timeshift-memory must be between 1 and 65536 MiB") }
        guard chapterSeekThreshold.isFinite, (0...86_400).contains(chapterSeekThreshold) else {
            throw ValidationError("--chapter-seek-threshold must be between 0 and 86400")
        }
        guard cacheSecs.isFinite, cacheSecs > 0, cacheSecs <= 86_400 else { throw ValidationError("--cache-secs must be more than 0 and at most 86400") }
        guard cachePauseWait.isFinite, (0...3600).contains(cachePauseWait) else { throw ValidationError("--cache-pause-wait must be between 0 and 3600") }
    }
}
