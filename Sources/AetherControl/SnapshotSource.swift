import AetherBase
import AetherMedia
import AetherPlayback
import AetherSubtitles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What remote front ends read (MPRIS, the IPC socket, property expansion): the
/// ``PlayerSnapshot`` made from the controller's state, and what it keeps to make it: the
/// loaded item's tracks, chapters and metadata as shown (``MediaCache``, built once per item),
/// the titles of the items that played, and the cover file written for MPRIS. Used on the
/// host's thread; only the cover is written from a thread of its own.
final class SnapshotSource {
    /// The current item's track list, chapters and metadata as the snapshot shows them (text
    /// sanitised), built once per item: dropped when an item loads (``itemWillLoad()``),
    /// rebuilt when the subtitle track list changes.
    private var mediaCache: MediaCache?
    /// The titles of items that played, by source (``PlaylistTitles``), at most one per item.
    private(set) var titlesSeen: [String: String] = [:]
    /// The cover file of the item loaded (``CoverFile``), written off the loop: the load it is
    /// for (a later load's thread wins, whichever ends first) and its URL.
    private let cover = Guarded<(load: Int, url: String?)>((0, nil))
    /// Where covers are written (`--cover-directory`'s; nil: nowhere, or MPRIS does not run).
    private var coverDirectory: String?
    /// The remote services were started: until then no cover is written.
    private var servicesKnown = false

    init(coverDirectory: String?) {
        self.coverDirectory = coverDirectory
    }

    /// An item is loading: what the snapshot showed of the last one goes.
    func itemWillLoad() {
        mediaCache = nil
    }

    /// An item of `source` opened, called `title` (nil: nothing says): kept while fewer titles
    /// are kept than the playlist's `count` items.
    func saw(_ title: String?, for source: String, items count: Int) {
        if let title, titlesSeen.count < count || titlesSeen[source] != nil {
            titlesSeen[source] = title
        }
    }

    /// The `file://` URL of the loaded item's cover once it is written (nil: not yet, or none).
    var coverURL: String? {
        cover.withLock { $0.url }
    }

    /// The remote services started: covers are written from now on if MPRIS runs (nothing reads
    /// them otherwise), and the item `player` has loaded already gets its own now.
    func servicesStarted(mpris: Bool, player: Player) {
        servicesKnown = true
        guard coverDirectory != nil else { return }
        if !mpris { coverDirectory = nil; return }
        if player.mediaInfo != nil, coverURL == nil { writeCover(of: player) }
    }

    /// The cover of the item `player` loaded, written as a file for MPRIS (none before the
    /// services started, nor without a directory), on a thread of its own: decoding and encoding
    /// a cover takes tens of ms. ``coverURL`` names it once written (the host's loop publishes a
    /// snapshot at least once a second).
    func writeCover(of player: Player) {
        let load = cover.withLock { c in c = (c.load + 1, nil); return c.load }
        guard let directory = coverDirectory, servicesKnown else { return }
        let cover = self.cover
        OSThread.start(name: "aether.cover") {
            guard let image = player.coverArt, let url = CoverFile.url(for: image, in: directory) else { return }
            cover.withLock { c in if c.load == load { c.url = url } }
        }
    }

    /// The title of `item`: the container's, else its tags', else the song a radio station
    /// says it plays (`icy-title`, as mpv), else the playlist's; nil when none says one.
    func title(of item: PlaylistItem, player: Player) -> String? {
        TextSanitizer.cleanOrNil(player.mediaInfo?.title) ?? TextSanitizer.cleanOrNil(player.tags.title)
            ?? player.networkStatus?.station?.title ?? TextSanitizer.cleanOrNil(item.title)
    }

    /// What each item of `playlist` is called: the titles seen, the one playing now.
    func playlistTitles(_ playlist: Playlist, player: Player) -> PlaylistTitles {
        var titles = PlaylistTitles()
        titles.items = playlist.items
        titles.position = playlist.position
        titles.seen = titlesSeen
        titles.current = playlist.current.flatMap { title(of: $0, player: player) }
        return titles
    }

    /// The snapshot of `c`'s player, playlist and settings.
    func snapshot(of c: PlayerController) -> PlayerSnapshot {
        let player = c.player, playlist = c.playlist, settings = c.settings
        var s = PlayerSnapshot()
        let state = player.state
        switch state {
        case .idle, .error: s.status = .stopped
        case .ended: s.status = c.item.heldAtEnd ? .paused : .stopped
        default: s.status = player.isPaused && !c.startsPlaying ? .paused : .playing
        }
        s.position = player.currentTime
        s.duration = player.duration
        s.audio.volume = player.volume
        s.audio.muted = player.isMuted
        s.audio.equalizer = settings.player.playing.equalizer.choice.text
        s.audio.replayGain = settings.player.audio.replayGain.mode.rawValue
        s.audio.replayGainDB = player.replayGain?.db
        s.speed = player.rate
        s.audio.track = player.activeAudioTrack.map { $0 + 1 }
        s.subtitles.track = player.activeSubtitleTrack.map { $0 + 1 }
        s.subtitles.delay = player.subtitleDelay
        s.audio.delay = player.audioDelay
        s.queue.position = playlist.position
        s.queue.count = playlist.count
        s.queue.titles = c.playlistTitles
        s.item.streamRecord = player.recordingPath.map { TextSanitizer.clean($0) }
        if let item = playlist.current {
            s.item.path = TextSanitizer.clean(item.source)
            s.item.filename = TextSanitizer.clean(item.displayName)
            let tags = player.tags
            s.item.tags.title = title(of: item, player: c.player)
            s.item.mediaTitle = c.mediaTitle
            s.item.artURL = coverURL
            s.item.tags.artist = TextSanitizer.cleanOrNil(tags.artist)
            s.item.tags.album = TextSanitizer.cleanOrNil(tags.album)
            s.item.tags.albumArtist = TextSanitizer.cleanOrNil(tags.albumArtist)
            s.item.tags.genre = TextSanitizer.cleanOrNil(tags.genre)
            s.item.tags.year = TextSanitizer.cleanOrNil(tags.year)
            // "3/12" → 3
            s.item.tags.track = tags.track.flatMap { Int($0.split(separator: "/").first.map(String.init) ?? "") }
        }
        let loopAll = settings.loopPlaylist.isOn
        s.queue.canGoNext = playlist.index(after: playlist.position, loop: loopAll) != nil
        s.queue.canGoPrevious = playlist.index(before: playlist.position, loop: loopAll) != nil
        s.queue.loopFile = settings.loopFile.isOn
        s.queue.abLoop = settings.abLoop
        s.queue.loopPlaylist = loopAll
        s.queue.shuffle = settings.shuffle
        if let info = player.mediaInfo, state != .idle {
            fillMedia(&s, info: info, of: c)
        }
        return s
    }

    /// The track list, chapters, metadata and video parameters (all text sanitised). What does
    /// not change while the item plays comes from ``mediaCache``, built once per item; only the
    /// selections, the chapter and the buffering state are read each time.
    private func fillMedia(_ s: inout PlayerSnapshot, info: MediaInfo, of c: PlayerController) {
        let player = c.player
        let subtitleTracks = player.subtitleTracks
        let media: MediaCache
        if let cached = mediaCache, cached.subtitleTracks == subtitleTracks {
            media = cached
        } else {
            media = MediaCache(info: info, subtitleTracks: subtitleTracks)
            mediaCache = media
        }
        let activeVideo = player.activeVideoTrack
        let activeAudio = player.activeAudioTrack
        let activeSub = player.activeSubtitleTrack
        s.media.videoTrack = activeVideo.map { $0 + 1 }
        s.media.chapters = media.chapters
        let now = player.currentTime
        s.media.chapter = info.chapters.lastIndex { $0.start <= now + 0.01 }
        var tracks = media.tracks
        for i in tracks.indices {
            let key = media.selectionKeys[i]
            switch tracks[i].kind {
            case .video: tracks[i].selected = key == activeVideo
            case .audio: tracks[i].selected = key == activeAudio
            case .sub: tracks[i].selected = key == activeSub
            }
        }
        s.media.tracks = tracks
        s.item.metadata = media.metadata
        if let station = c.station { s.item.metadata.merge(station.tags) { _, new in new } }
        // The picture as it plays (a bit-rate switch changes its size), not as it was probed.
        if activeVideo != nil { s.media.video = player.playingVideo.map(PlayerSnapshot.VideoParams.init(playing:)) }
        s.item.fileFormat = info.container
        s.item.fileSize = c.item.fileSize
        s.buffering = player.isBuffering
        s.seekable = player.seekableRange != nil
        s.adaptive.hlsBitrate = player.variant?.bandwidth
        if let adaptive = player.adaptive { s.adaptive.estimatedThroughput = adaptive.estimate.map { $0.rounded() } }
        if activeVideo != nil, player.networkStatus != nil {
            let rate = player.telemetry(advance: false).bitrates.instant
            if rate > 0 { s.adaptive.videoBitrate = rate.rounded() }
        }
    }
}

/// What the snapshot shows of the loaded item that does not change while it plays, its text
/// sanitised once: built from the item's ``MediaInfo`` and its subtitle tracks. Dropped when an
/// item loads; rebuilt when the subtitle track list is not the one it was built from.
struct MediaCache {
    /// The subtitle tracks the list was built from.
    let subtitleTracks: [SubtitleTrackInfo]
    /// Video, audio and subtitle tracks in that order, none selected.
    let tracks: [PlayerSnapshot.Track]
    /// Per track, what its selection is compared with: the video or audio index, the subtitle id.
    let selectionKeys: [Int]
    let chapters: [PlayerSnapshot.ChapterEntry]
    let metadata: [String: String]

    init(info: MediaInfo, subtitleTracks: [SubtitleTrackInfo]) {
        self.subtitleTracks = subtitleTracks
        chapters = info.chapters.map { .init(title: TextSanitizer.cleanOrNil($0.title) ?? "", time: $0.start) }
        var tracks: [PlayerSnapshot.Track] = []
        var keys: [Int] = []
        for (k, v) in info.video.enumerated() {
            var t = Self.track(.video, id: k + 1, codec: v.codec, title: v.tags.title, language: v.tags.language,
                               isDefault: v.tags.isDefault, isForced: v.tags.isForced)
            t.width = v.width
            t.height = v.height
            t.fps = v.frameRate
            tracks.append(t)
            keys.append(k)
        }
        for (k, a) in info.audio.enumerated() {
            var t = Self.track(.audio, id: k + 1, codec: a.codec, title: a.tags.title, language: a.tags.language,
                               isDefault: a.tags.isDefault, isForced: a.tags.isForced)
            t.channels = a.channels
            t.sampleRate = a.sampleRate
            t.externalFilename = TextSanitizer.cleanOrNil(a.externalFile)
            tracks.append(t)
            keys.append(k)
        }
        for (k, sub) in subtitleTracks.enumerated() {
            var t = Self.track(.sub, id: k + 1, codec: sub.codec, title: sub.title, language: sub.language,
                               isDefault: sub.isDefault, isForced: sub.isForced)
            if case .sidecar(let path) = sub.source { t.externalFilename = TextSanitizer.cleanOrNil(path) }
            tracks.append(t)
            keys.append(sub.id)
        }
        self.tracks = tracks
        selectionKeys = keys
        var metadata: [String: String] = [:]
        let tags = info.tags
        for (key, value) in [("title", info.title ?? tags.title), ("artist", tags.artist), ("album", tags.album),
                             ("album_artist", tags.albumArtist), ("track", tags.track), ("date", tags.date),
                             ("genre", tags.genre)] {
            if let v = TextSanitizer.cleanOrNil(value) { metadata[key] = v }
        }
        self.metadata = metadata
    }

    /// A track of `kind`, numbered `id` within its kind, with what its stream says of itself
    /// (the text sanitised).
    private static func track(_ kind: PlayerSnapshot.Track.Kind, id: Int, codec: String, title: String?, language: String?,
                              isDefault: Bool, isForced: Bool) -> PlayerSnapshot.Track {
        var t = PlayerSnapshot.Track(kind: kind, id: id, codec: codec)
        t.title = TextSanitizer.cleanOrNil(title)
        t.language = TextSanitizer.cleanOrNil(language)
        t.isDefault = isDefault
        t.isForced = isForced
        return t
    }
}

extension PlayerSnapshot.VideoParams {
    /// `video-params`, `width`, `dwidth` … of the video as it plays (``Player/playingVideo``):
    /// `width`/`height` as coded, `dwidth`/`dheight` as shown (the aspect applied, then turned
    /// by the rotation, as mpv's are).
    init(playing v: VideoStreamInfo) {
        let dw = v.displayAspect > 0 && v.height > 0 ? Int(saturating: (Double(v.height) * v.displayAspect).rounded()) : v.width
        let turned = v.rotation == 90 || v.rotation == 270
        self.init(width: v.width, height: v.height, displayWidth: turned ? v.height : dw, displayHeight: turned ? dw : v.height,
                  codec: v.codec)
        pixelFormat = v.colour.pixelFormat
        primaries = v.colour.primaries
        gamma = v.colour.transfer
        fps = v.frameRate
    }
}
