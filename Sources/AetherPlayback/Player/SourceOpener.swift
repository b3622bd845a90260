import AetherMedia
import AetherStreaming
import AetherTransport
import AetherSubtitles
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Opens a source: reads an HLS master or DASH manifest ahead (its ``SourceKind``), opens and
/// probes it (a web page through yt-dlp, ``WebPage``), chooses the variant and the tracks,
/// scans MP4 headers for encryption, opens the decoders, the audio device and the subtitle
/// tracks. Runs on the loading thread; throws a ``PlayerError`` saying why a source cannot play.
enum SourceOpener {
    /// The kinds of source read ahead of libavformat, each claiming URLs by their extension.
    static var kinds: [any SourceKind.Type] { [HLSMasterKind.self, DASHManifestKind.self] }

    /// What an open found: media, opened, or a web page that lists several videos (not a
    /// failure: the host plays its entries in the page's place).
    enum Found {
        case media(OpenedSource)
        case pagePlaylist(PagePlaylist)
    }

    /// What libavformat reached at a URL: media, or a web page (``WebPage``) for yt-dlp.
    private enum Reached {
        case media(OpenedSource)
        case page(WebPage)
    }

    /// Opens `url`; an http(s) URL that turns out to be a web page is handed to yt-dlp
    /// (``WebPage``) unless `--ytdl=no`, and what it names plays. `continuing`: the playing
    /// item's device, which this one continues (gapless).
    static func open(url: String, options: PlayerOptions, continuing: AudioSink? = nil) throws(PlayerError) -> Found {
        switch try openMedia(url: url, options: options, continuing: continuing) {
        case .media(let opened): return .media(opened)
        case .page(let page):
            switch try page.media(url: url) {
            case .playlist(let list): return .pagePlaylist(list)
            case .media(let media, let options):
                // The page's media is opened as media: a page again is the page's failure.
                guard case .media(let opened) = try openMedia(url: media, options: options, continuing: continuing) else { throw page.failure }
                return .media(opened)
            }
        }
    }

    private static func openMedia(url: String, options: PlayerOptions, continuing: AudioSink?) throws(PlayerError) -> Reached {
        let openOptions: [String: String]
        do { openOptions = try SourceOptions.make(network: options.network) } catch {
            throw PlayerError(error)
        }
        let interrupt = options.opening.interrupt ?? InterruptToken(clock: options.time)
        let request = OpenRequest(url: url, options: options, openOptions: openOptions, interrupt: interrupt,
                                  transport: TransportSession(policy: options.network.tls))
        var kind: (any SourceKind)?
        for k in kinds where kind == nil { kind = try k.init(request) }
        let target = kind?.target ?? DemuxTarget(url: url)
        var warnings = target.warnings
        var variants = target.variants
        var variant = target.variant
        if interrupt.isCancelled { throw PlayerError("cannot open '\(TextSanitizer.clean(url))': interrupted", cause: .interrupted) }
        let format: FormatContext
        // The HLS demuxer's start on a live playlist (HLS, or DASH translated).
        var demuxOptions = openOptions.merging(target.demuxOptions) { _, kind in kind }
        if NetworkSettings.isNetwork(url) { demuxOptions["live_start_index"] = String(options.stream.liveStartIndex) }
        if let title = options.stream.discTitle { demuxOptions[FormatContext.discTitleOption] = String(title) }
        let name = TextSanitizer.clean(target.name ?? target.url)
        do {
            format = try FormatContext(url: target.url, options: demuxOptions, timeout: options.opening.timeout,
                                       interrupt: interrupt, network: options.network, adaptive: target.switcher,
                                       documents: target.documents, transmuxed: target.transmuxed, prefetched: request.prefetched,
                                       transport: request.transport)
        } catch {
            let why = NetworkSettings.diagnose(error, url: target.url, options: openOptions, timeout: options.network.readTimeout,
                                               openDeadline: interrupt.isCancelled ? nil : options.opening.timeout, clock: options.time)
            let failure = PlayerError("cannot open '\(name)': \(why.line)",
                                      cause: interrupt.isCancelled ? .interrupted
                                          : why.cause != .other ? .network(why) : .ffmpeg(function: error.function, code: error.code))
            if let page = WebPage(error, failure: failure, url: url, options: options, interrupt: interrupt) { return .page(page) }
            // FFmpeg 7 and later refuse some encrypted fragmented MP4s at the header: said so.
            if error.code == WebPage.invalidData, let path = NetworkSettings.localPath(url), let found = EncryptionScan.scan(path: path) {
                throw PlayerError("'\(TextSanitizer.clean(url))' is encrypted (\(found.scheme)); cannot play it", cause: .nothingToPlay)
            }
            throw failure
        }
        var probed: MediaInfo
        do {
            format.interrupt.arm(seconds: options.opening.timeout)
            defer { format.interrupt.arm(seconds: nil) }
            probed = try MediaProbe.probe(format)
        } catch {
            let failure = PlayerError("cannot read '\(name)': \(error.message)", cause: .ffmpeg(function: error.function, code: error.code))
            if let page = WebPage(error, failure: failure, url: url, options: options, interrupt: interrupt) { return .page(page) }
            throw failure
        }
        kind?.refine(&probed)
        // A page's title and chapters (yt-dlp's) stand for the media's.
        if let page = options.page {
            if let title = page.title { probed.title = title }
            if probed.chapters.isEmpty, !page.chapters.isEmpty { probed.chapters = page.chapters }
        }
        // HLS through the master, or DASH: libavformat exposes every variant's video as a stream;
        // one is chosen and the others are discarded (never fetched once playing).
        let isAdaptive = probed.container.contains("hls") || probed.container.contains("dash")
        if isAdaptive, probed.video.count > 1 {
            let candidates = probed.video.map { v -> StreamVariant in
                var c = StreamVariant(bandwidth: Self.variantBitrate(format, v.index))
                c.width = v.width
                c.height = v.height
                c.codecs = v.codec
                c.videoRange = v.format == .sdr ? "SDR" : v.format == .hlg ? "HLG" : "PQ"
                return c
            }
            // The variant chosen from the master (the switcher's anchor, whose segments it
            // replaces) plays; else the chooser's pick among the streams.
            let chosen = variant.flatMap { v in candidates.firstIndex { $0.bandwidth == v.bandwidth && $0.isHDR == v.isHDR } }
            if let k = chosen ?? VariantChooser.choose(candidates, preference: options.stream.variantPreference, range: options.stream.videoRange) {
                if variant == nil || variants.isEmpty { variants = candidates; variant = candidates[k] }
                probed.video = [probed.video[k]]
            }
        }
        // `--vid=N` (adaptive sources keep the variant chosen above).
        if let k = options.video.track, probed.video.indices.contains(k) { probed.chosenVideo = k }
        // `--audio-file`: each opens with the source's rules; one that cannot is a warning.
        var externals: [ExternalAudio] = []
        for (n, file) in options.audio.files.prefix(ExternalAudio.maxFiles).enumerated() {
            if interrupt.isCancelled { throw PlayerError("cannot open '\(TextSanitizer.clean(url))': interrupted", cause: .interrupted) }
            do {
                let ext = try ExternalAudio.open(file, number: n, openOptions: openOptions, options: options)
                externals.append(ext)
                probed.audio += ext.tracks
            } catch {
                warnings.append("\(error)")
            }
        }
        let ownAudio = probed.audio.filter { $0.externalFile == nil }
        let info = probed
        // Live: a network source without a length (live HLS/DASH, a TS over HTTP, UDP), or forced.
        let isLive = options.stream.live ?? (NetworkSettings.isNetwork(url) && probed.duration == nil)
        let timeshift: TimeshiftBuffer?
        if isLive, options.timeshift.seconds > 0 {
            let memory = max(1 << 20, options.timeshift.memoryBytes)
            let parent = options.timeshift.directory ?? Paths.temporaryDirectory(environment: ProcessInfo.processInfo.environment) + "aether-timeshift"
            TimeshiftBuffer.removeStale(in: parent)
            let disk = TimeshiftBuffer.diskLimit(asked: options.timeshift.diskBytes, directory: parent)
            AppLog.write("live", "timeshift: \(options.timeshift.seconds) s, \(memory >> 20) MiB in memory, at most \(disk >> 20) MiB on disk in \(TextSanitizer.clean(parent))")
            timeshift = TimeshiftBuffer(settings: .init(
                window: options.timeshift.seconds, memoryLimit: memory,
                directory: parent + "/timeshift-\(getpid())-\(OpenedSource.timeshiftSerial.add(1, ordering: .relaxed).newValue)",
                diskLimit: disk,
                chunkBytes: max(64 << 10, min(2 << 20, memory / 4))), clock: options.time)
        } else {
            timeshift = nil
        }
        // `--vid=no`: no video stream at all (an attached picture never is one: see CoverArt).
        let videoIndex = options.video.enabled ? info.primaryVideo?.index : nil
        let coverArt = CoverArt.take(from: format)
        // CENC in MP4: said from the header, before anything reaches a decoder.
        var encrypted = Set<Int>()
        if info.container.contains("mp4") || info.container.contains("mov"), let path = NetworkSettings.localPath(url),
           let found = EncryptionScan.scan(path: path) {
            let streams = (found.video ? info.video.map { ($0.index, $0.codec) } : [])
                + (found.audio ? ownAudio.map { ($0.index, $0.codec) } : [])
            let lines = streams.map { "stream #\($0.0) (\($0.1)) is encrypted (\(found.scheme)); cannot play it" }
            let playable = (found.video ? 0 : info.video.count) + (found.audio ? 0 : ownAudio.count) + externals.count
            if playable == 0, let first = lines.first {
                throw PlayerError("cannot play '\(TextSanitizer.clean(url))': \(first)", cause: .nothingToPlay)
            }
            encrypted = Set(streams.map(\.0))
            warnings.append(contentsOf: lines)
        }
        let endTime = options.length.map { options.start + max(0, $0) }
        let cacheSeconds = max(0, options.stream.cacheSeconds ?? (NetworkSettings.isNetwork(url) ? options.stream.networkCacheSeconds : 0))
        let subtitles = SubtitleStore(info: info, url: target.url, openOptions: openOptions, network: options.network, timeline: format.timeline,
                                  codepage: options.subtitles.codepage, fonts: attachedFonts(format), clock: options.time)
        // Lyrics in the file's tags (its ID3 SYLT frames, a LYRICS tag), for a file of sound.
        if info.video.isEmpty || !options.video.enabled {
            let audio = info.audio.first.flatMap { format.stream($0.index) }?.pointee.metadata
            subtitles.addEmbeddedLyrics(metadata: [format.pointer.pointee.metadata, audio], path: NetworkSettings.isNetwork(url) ? nil : url,
                                        duration: info.duration)
        }

        // Video decoder.
        var videoDecoder: VideoDecoder?
        if let videoIndex, !encrypted.contains(videoIndex), let stream = format.stream(videoIndex) {
            do {
                videoDecoder = try VideoDecoder(stream: stream, index: videoIndex, threads: options.video.decodeThreads,
                                                timeline: format.timeline, automaticThreads: true, time: options.time)
            } catch {
                let codec = info.primaryVideo?.codec ?? "video"
                warnings.append("cannot decode video stream #\(videoIndex) (\(codec)): \(error.message)")
            }
        }
        // Audio track and sink.
        var audioIndex: Int? = nil
        if options.audio.enabled, info.audio.contains(where: { !encrypted.contains($0.index) }) {
            let playable = info.audio.filter { !encrypted.contains($0.index) }
            if let k = options.audio.track, info.audio.indices.contains(k) {
                audioIndex = info.audio[k].index
            } else if let first = externals.first?.tracks.first {
                // An audio file given for this source plays (as in mpv).
                audioIndex = first.index
            } else if let match = LanguagePreference.first(of: options.audio.languages, in: playable.map(\.tags.language)) {
                audioIndex = playable[match].index
            } else {
                // libavformat's choice weighs the default flag, then channels and bit rate.
                let best = av_find_best_stream(format.pointer, AVMEDIA_TYPE_AUDIO, -1, Int32(videoIndex ?? -1), nil, 0)
                audioIndex = best >= 0 ? Int(best) : info.audio.first?.index
            }
        }
        var sink: AudioSink? = nil
        var audioDecoder: AudioDecoder?
        let audioStreams = AudioStreams(main: format, externals: externals)
        if let index = audioIndex, let found = audioStreams.stream(index), let par = found.0.pointee.codecpar {
            let (stream, timeline) = found
            // A damaged header can claim any rate (2147483647 Hz): ask the device for a sane one,
            // libswresample converts whatever the decoder really produces.
            let rate = Int(par.pointee.sample_rate)
            let wantRate = (8000...384_000).contains(rate) ? rate : 48000
            // Stereo at most unless `--audio-channels` says otherwise: we downmix ourselves
            // (centre and surrounds kept), whatever the device.
            let wantChannels = options.audio.channels.channels(source: Int(par.pointee.ch_layout.nb_channels))
            if let continuing {
                // Gapless: the device of the item before, when this one's format is its own or
                // `--gapless-audio=yes` lets the decoder convert.
                let same = continuing.format == AudioFormat(sampleRate: wantRate, channels: wantChannels)
                guard same || options.audio.gapless == .yes else {
                    throw PlayerError("its sound (\(wantRate) Hz, \(wantChannels) ch) differs from the playing item's (\(continuing.format.sampleRate) Hz, \(continuing.format.channels) ch)")
                }
                sink = continuing
            } else {
                sink = openDevice(options, rate: wantRate, channels: wantChannels, warnings: &warnings)
            }
            if let sink {
                do {
                    audioDecoder = try AudioDecoder(stream: stream, index: index, output: sink.format, timeline: timeline,
                                                    filters: options.audio.filters, equalizer: options.playing.equalizer.curve)
                } catch {
                    warnings.append("cannot decode audio stream #\(index) (\(error.message)); playing without sound")
                    audioIndex = nil
                }
            }
        }
        if audioDecoder == nil { audioIndex = nil }
        if videoDecoder == nil && audioDecoder == nil {
            let why = warnings.last.map { ": " + $0.replacingAll("; playing without sound", with: "") }
                ?? ": no decodable audio or video stream"
            throw PlayerError("nothing to play in '\(TextSanitizer.clean(url))'\(why)", cause: .nothingToPlay)
        }
        // Sidecars first, so `--sid` can name a `--sub-file` track.
        for path in options.subtitles.files {
            do { try subtitles.addSidecar(path: path) } catch { warnings.append("\(error)") }
        }
        if options.subtitles.enabled { kind?.addText(to: subtitles) }
        _ = subtitles.initialTrack(requested: options.subtitles.track, enabled: options.subtitles.enabled,
                                   languages: options.subtitles.languages)
        // Where the encoder's delay ends and its padding begins.
        let gap = audioIndex.flatMap { $0 < format.streamCount ? EncoderGap.trim(format, stream: $0) : nil }
        let opened = OpenedSource(
            format: format, info: info, openOptions: openOptions, streamCountAtOpen: format.streamCount,
            video: .init(index: videoIndex, decoder: videoDecoder),
            audio: .init(index: audioIndex, decoder: audioDecoder, sink: audioDecoder == nil ? nil : sink,
                         continuesSink: continuing != nil && audioDecoder != nil && sink != nil, start: gap?.start, end: gap?.end),
            encryptedStreams: encrypted,
            adaptive: .init(discardsUnplayed: isAdaptive, changesCodec: target.changesCodec, variants: variants, variant: variant,
                            switcher: format.adaptive),
            reading: .init(isLive: isLive, timeshift: timeshift, endTime: endTime, cacheSeconds: cacheSeconds),
            coverArt: coverArt, subtitles: subtitles, warnings: warnings, externals: externals)
        return .media(opened)
    }

    /// The device `--ao`/`--audio-device` name, asked for `rate` and `channels`; a `NullSink`
    /// (and a warning) when it cannot be opened.
    static func openDevice(_ options: PlayerOptions, rate: Int, channels: Int, warnings: inout [String]) -> AudioSink {
        switch options.audio.output {
        case .null:
            return NullSink(format: AudioFormat(sampleRate: rate, channels: channels), time: options.time)
        case .alsa(let device):
            do {
                let buffer = UInt32((min(10, max(0.02, options.audio.bufferSeconds)) * 1_000_000).rounded())
                return try ALSASink(device: device, rate: rate, channels: channels, bufferTime: buffer, time: options.time)
            } catch {
                warnings.append("audio device '\(device)' unavailable (\(error.message)); playing without sound")
                return NullSink(format: AudioFormat(sampleRate: rate, channels: channels), time: options.time)
            }
        }
    }

    /// A variant stream's peak bit rate: libavformat's `variant_bitrate` (HLS BANDWIDTH, DASH
    /// bandwidth), else the stream's bit rate.
    static func variantBitrate(_ format: FormatContext, _ index: Int) -> Int {
        guard let stream = format.stream(index) else { return 0 }
        if let entry = av_dict_get(stream.pointee.metadata, "variant_bitrate", nil, 0), let rate = Int(String(cString: entry.pointee.value)) {
            return rate
        }
        return Int(stream.pointee.codecpar?.pointee.bit_rate ?? 0)
    }

    /// The fonts attached to the file (Matroska attachments: FFmpeg keeps their bytes as the
    /// stream's extradata), for libass; nil when there are none.
    static func attachedFonts(_ format: FormatContext) -> ASSFontSet? {
        var fonts: [ASSFontSet.Font] = []
        var total = 0
        for index in 0..<format.streamCount where fonts.count < ASSFontSet.maxFonts {
            guard let stream = format.stream(index), let par = stream.pointee.codecpar,
                  par.pointee.codec_type == AVMEDIA_TYPE_ATTACHMENT else { continue }
            let mime = metadataValue(stream.pointee.metadata, "mimetype")
            let name = metadataValue(stream.pointee.metadata, "filename") ?? "attachment \(index)"
            guard ASSFontSet.isFont(mimeType: mime, filename: name)
                    || [AV_CODEC_ID_TTF, AV_CODEC_ID_OTF].contains(par.pointee.codec_id) else { continue }
            guard let data = par.pointee.extradata, par.pointee.extradata_size > 0 else { continue }
            let size = Int(par.pointee.extradata_size)
            // Checked before copying: a file of many large attachments costs no memory.
            guard size <= ASSFontSet.maxFontBytes, total + size <= ASSFontSet.maxTotalBytes else {
                ASSLog.receive(level: 1, line: "font attachment '\(TextSanitizer.clean(name))' (\(size) bytes) skipped: \(ASSFontSet.limitText)")
                continue
            }
            total += size
            fonts.append(ASSFontSet.Font(name: TextSanitizer.clean(name), data: Array(UnsafeBufferPointer(start: data, count: size))))
        }
        return fonts.isEmpty ? nil : ASSFontSet(fonts: fonts)
    }

    private static func metadataValue(_ dict: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dict, key, nil, 0), let value = entry.pointee.value else { return nil }
        return String(cString: value)
    }
}

/// An http(s) source libavformat reached but did not recognise as media (it begins as HTML
/// does): a web page, which yt-dlp (``YtdlRunner``) may say plays a video, unless `--ytdl=no`.
/// A kind of source the opener found, not an error.
struct WebPage {
    /// libavformat's "Invalid data found when processing input" (`AVERROR_INVALIDDATA`).
    static let invalidData: Int32 = -0x4144_4E49

    /// The open's failure, thrown when yt-dlp names nothing.
    let failure: PlayerError
    let options: PlayerOptions
    /// The open's token: yt-dlp's run is part of the same open (cancelled with it, on its clock).
    let interrupt: InterruptToken

    /// A page when `error` is libavformat's refusal of an http(s) URL not already a page's media.
    init?(_ error: FFmpegError, failure: PlayerError, url: String, options: PlayerOptions, interrupt: InterruptToken) {
        guard error.code == Self.invalidData, options.ytdl.enabled, options.page == nil,
              ["http", "https"].contains(NetworkSettings.scheme(of: url) ?? "") else { return nil }
        self.failure = failure
        self.options = options
        self.interrupt = interrupt
    }

    /// What the page names.
    enum Names {
        /// Its video (or only) URL and the options it opens with.
        case media(url: String, options: PlayerOptions)
        /// Several videos: the playlist the host plays in the page's place.
        case playlist(PagePlaylist)
    }

    /// Reads the page once more (within a budget) through yt-dlp: the URL of what it names (its
    /// video, or only, URL) and the options it opens with (a separate audio URL as the first
    /// `--audio-file`, its HTTP headers under the user's own, its title and chapters), or the
    /// playlist of several videos. Throws the open's failure when yt-dlp names nothing.
    func media(url: String) throws(PlayerError) -> Names {
        let answer: PageAnswer?
        do {
            answer = try YtdlRunner.media(onPage: url, network: options.network, settings: options.ytdl,
                                          interrupt: interrupt, timeout: options.opening.timeout)
        } catch { throw PlayerError(error) }
        guard let answer else { throw failure }
        guard case .media(let page) = answer else {
            if case .playlist(let list) = answer {
                AppLog.write("ytdl", "the page is a playlist of \(list.entries.count) entries")
                return .playlist(list)
            }
            throw failure
        }
        AppLog.write("ytdl", "the page names \(TextSanitizer.clean(page.url))\(page.audioURL.map { " + audio " + TextSanitizer.clean($0) } ?? "")")
        var o = options
        o.page = page
        if let audio = page.audioURL { o.audio.files.insert(audio, at: 0) }
        o.network = page.network(over: o.network)
        return .media(url: page.url, options: o)
    }
}
