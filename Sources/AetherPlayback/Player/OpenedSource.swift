import AetherMedia
import AetherStreaming
import AetherSubtitles
import CFFmpeg
import Synchronization

/// Everything opening a source decided, handed to the ``PlaybackSession`` that plays it: the
/// opened demuxer and what the probe found, the variant of an adaptive stream, the streams the
/// header says are encrypted, the chosen tracks with their decoders, the audio device, and the
/// subtitle tracks (embedded and sidecar). Made by ``SourceOpener/open(url:options:continuing:)``;
/// nothing in it runs a thread yet.
struct OpenedSource {
    let format: FormatContext
    let info: MediaInfo
    /// Options the source was opened with (headers, protocol whitelist), for second readers.
    let openOptions: [String: String]
    /// Streams the source had when it opened: one that appears later stands for the video's or
    /// the audio's (``FollowedStreams``).
    let streamCountAtOpen: Int
    let video: Video
    let audio: Audio
    /// Streams the header says are encrypted: never decoded.
    let encryptedStreams: Set<Int>
    let adaptive: Adaptive
    let reading: Reading
    let coverArt: CoverArt?
    let subtitles: SubtitleStore
    /// Problems met while opening that do not stop playback.
    let warnings: [String]
    /// The `--audio-file`s that opened (their tracks are in `info.audio`, after the source's own).
    let externals: [ExternalAudio]

    /// The video stream playing and its decoder.
    struct Video {
        /// nil: none (`--vid=no`).
        let index: Int?
        /// nil: the stream cannot be decoded (the sound plays alone).
        let decoder: VideoDecoder?
    }

    /// The audio stream playing, its decoder and the device it plays on.
    struct Audio {
        /// nil: silent.
        let index: Int?
        let decoder: AudioDecoder?
        /// The audio device (nil when no audio decodes).
        let sink: AudioSink?
        /// The device is the item before's, continued (gapless): it is not this source's to reset.
        var continuesSink = false
        /// Where the encoder's delay ends and its padding begins (``EncoderGap``, where the
        /// decoders leave them): samples outside are never heard.
        var start: Double?
        var end: Double?
    }

    /// An HLS or DASH stream's variants.
    struct Adaptive {
        /// HLS or DASH through libavformat: unplayed variant streams are discarded.
        let discardsUnplayed: Bool
        /// A DASH manifest whose later periods change the video or audio codec: seeks go by
        /// the audio stream (see ``DemuxLoop``'s `perform(seek:mode:forward:)`).
        var changesCodec = false
        /// The variants and the one playing (empty/nil: not adaptive).
        let variants: [StreamVariant]
        let variant: StreamVariant?
        /// Bit-rate switching (`--hls-bitrate=auto` on a switchable HLS master), nil when the
        /// variant is fixed.
        let switcher: AdaptiveSwitcher?
    }

    /// How the demux side reads it.
    struct Reading {
        /// A live stream (no length).
        let isLive: Bool
        /// Live with a timeshift window: where the capture thread keeps it.
        let timeshift: TimeshiftBuffer?
        /// `--length`: where playback stops (media seconds).
        let endTime: Double?
        /// Seconds the demuxer reads ahead (0: no cache).
        let cacheSeconds: Double
    }

    /// Numbers the timeshift directories of the sessions of this process.
    static let timeshiftSerial = Atomic<Int>(0)
}

extension OpenedSource {
    /// Adaptive sources: every video and audio stream but the ones playing (the video, `audio`,
    /// and any that appeared after the open: the one playing in another codec, see
    /// ``FollowedStreams``) is discarded, so the demuxer never fetches their segments. Demux
    /// thread, the capture thread (live), or before they start.
    func discardUnplayed(audio: Int?) {
        guard adaptive.discardsUnplayed else { return }
        for i in 0..<format.streamCount {
            guard let stream = format.stream(i), let type = stream.pointee.codecpar?.pointee.codec_type else { continue }
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO else { continue }
            let keep = i == video.index || i == audio || i >= streamCountAtOpen
            stream.pointee.discard = keep ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }
}
