import AetherControl
import AetherMedia
import AetherPlayback
import AetherSubtitles
import AetherStreaming

/// What the screen reads of the player and the controller, read once for each pass of the loop
/// (``init(controller:source:)``) and then only passed around: the views are functions of the
/// model (``ViewState``) and this value, so a frame's title, bar, badges and stats agree on one
/// position, one state and one item, however the engine's threads move meanwhile.
///
/// It is not the remote front ends' ``PlayerSnapshot``: that one speaks mpv's property
/// vocabulary (sanitised text, tracks counted from 1), made for IPC, MPRIS and `--title`; the
/// screen reads the engine's own types (the chapters, the playing video's facts, the network's
/// phase, the adaptive stream's switches).
struct PlayerReading {
    var state = PlayerState.idle
    var isPaused = true
    /// Playback waits for the cache (`buffering…`).
    var isBuffering = false
    /// The clock's media time (seconds), and the item's length (nil: unknown or live).
    var position = 0.0
    var duration: Double?
    var rate = 1.0
    var volume = 100.0
    var isMuted = false
    /// Live: the kept window (nil: not live).
    var isLive = false
    var liveWindow: ClosedRange<Double>?
    /// How far the demuxer has read ahead (network sources; nil otherwise).
    var cachedUntil: Double?
    var mediaInfo: MediaInfo?
    /// A video stream plays, and its facts as it plays (the variant's size and rate).
    var hasVideo = false
    var playingVideo: VideoStreamInfo?
    /// Position in `mediaInfo.audio` of the playing track (nil: silent).
    var activeAudioTrack: Int?
    var activeSubtitleTrack: Int?
    var lyricsTrack: Int?
    var subtitleTracks: [SubtitleTrackInfo] = []
    var audioDelay = 0.0
    var subtitleDelay = 0.0
    var networkStatus: NetworkStatus?
    var adaptive: AdaptiveStatus?
    var variant: StreamVariant?
    var variants: [StreamVariant] = []
    var tags = MediaTags()
    var lyrics: Lyrics?
    /// The equalizer as set, and the curve that runs (its safe preamp).
    var equalizer = EqualizerSetting.flat
    var runningEqualizer = EqualizerCurve.flat
    /// The controller's part: the item's title (``PlayerController/mediaTitle``), what opens
    /// and since when, whether subtitles show, the playlist.
    var mediaTitle: String?
    var opening: (source: String, since: Double)?
    var subtitlesVisible = true
    var playlistPosition: Int?
    var playlistCount = 0
    /// The item playing: its name as the playlist gives it, and its path or URL.
    var itemName: String?
    var source = ""

    /// A reading with nothing playing (the views' tests fill in what they show).
    init() {}

    /// Reads `controller`'s player and playlist now; `source` is the item playing (its path or URL).
    init(controller: PlayerController, source: String) {
        let player = controller.player
        state = player.state
        isPaused = player.isPaused
        isBuffering = player.isBuffering
        position = player.currentTime
        duration = player.duration
        rate = player.rate
        volume = player.volume
        isMuted = player.isMuted
        isLive = player.isLive
        liveWindow = player.liveWindow
        cachedUntil = player.cachedUntil
        mediaInfo = player.mediaInfo
        hasVideo = player.hasVideo
        playingVideo = player.playingVideo
        activeAudioTrack = player.activeAudioTrack
        activeSubtitleTrack = player.activeSubtitleTrack
        lyricsTrack = player.lyricsTrack
        subtitleTracks = player.subtitleTracks
        audioDelay = player.audioDelay
        subtitleDelay = player.subtitleDelay
        networkStatus = player.networkStatus
        adaptive = player.adaptive
        variant = player.variant
        variants = player.variants
        tags = player.tags
        lyrics = player.lyrics
        equalizer = player.equalizer
        runningEqualizer = player.runningEqualizer
        mediaTitle = controller.mediaTitle
        opening = controller.openingItem
        subtitlesVisible = controller.subtitlesVisible
        playlistPosition = controller.playlist.position
        playlistCount = controller.playlist.count
        itemName = controller.playlist.current?.displayName
        self.source = source
    }

    /// How far behind the live edge playback is (nil: not live).
    var liveLatency: Double? { Player.latency(behindEdgeOf: liveWindow, at: position) }

    /// What the playing radio station says about itself (``PlayerController/station``).
    var station: StationMetadata? { networkStatus?.station }

    /// The progress bar's axis: the file, or a live stream's kept window (its right end the
    /// live edge). The bar, the scrub marker, the preview and the mouse all place times with it.
    var barAxis: TransportBar.Axis {
        TransportBar.Axis(duration: duration, liveWindow: isLive ? liveWindow : nil)
    }

    /// What the network is doing when the user should know: `reconnecting (2)` while a transfer
    /// is retried, `buffering…` while playback waits for the cache, nil otherwise.
    var networkText: String? {
        if case .reconnecting(let attempt, let left) = networkStatus?.phase { return ChromeView.reconnecting(attempt, left) }
        return isBuffering ? "buffering…" : nil
    }

    /// The aspect the picture is laid out for: the video as it plays (an inserted ad of another
    /// shape, a variant), else as probed.
    var pictureAspect: Double { (playingVideo ?? mediaInfo?.primaryVideo)?.uprightAspect ?? 16.0 / 9 }

    /// The chapter playing at `time` (nil: before the first, or none).
    func chapter(at time: Double) -> Chapter? {
        mediaInfo?.chapters.last { $0.start <= time + 0.01 }
    }
}
