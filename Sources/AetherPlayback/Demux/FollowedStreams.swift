import AetherBase
import AetherMedia
import CFFmpeg

/// The stream each decoder was last given packets from, and from which it came: a stream that
/// appeared after the open stands for the video's or the audio's (a DASH period of another
/// codec: our MPEG-TS gives each codec its own PID, so its packets come as a new stream). The
/// demux thread's alone.
struct FollowedStreams {
    struct Route {
        /// The stream the packets come from now (nil: its own; -1: not known, after a seek).
        var source: Int?
        /// The one before, and the time (the followed stream's time base) the change came at.
        var previous: Int?
        var changedAt: Int64?
    }
    /// Its format, video stream and ``OpenedSource/streamCountAtOpen``.
    let source: OpenedSource
    var video = Route()
    var audio = Route()
    var followsAny: Bool { video.source != nil || audio.source != nil }

    /// After a seek the next packet says which stream the decoder needs.
    mutating func seeked() {
        if video.source != nil { video = Route(source: -1) }
        if audio.source != nil { audio = Route(source: -1) }
    }

    /// Stamps a packet of a stream that appeared later as the followed stream's (index and time
    /// base); the first packet from another stream than the last carries that stream's
    /// parameters, and the decoder opens again with them (back, too, after a seek). False: a
    /// packet of the stream left behind that comes after the change and belongs before it
    /// (the HLS demuxer's MPEG-TS reader parses H.264 and keeps each PID's last frame until the
    /// next one or the end of the input): left out, logged (a video frame counts as dropped).
    mutating func admit(_ packet: Packet, audioIndex: Int?) -> Bool {
        let index = packet.streamIndex, format = source.format, videoIndex = source.video.index, streamCountAtOpen = source.streamCountAtOpen
        // The common case, a packet per call: nothing appeared, nothing followed.
        if index < streamCountAtOpen, !followsAny { return true }
        let target: Int?
        let isVideo: Bool
        if index >= streamCountAtOpen, let par = format.stream(index)?.pointee.codecpar {
            switch par.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO:
                target = videoIndex
                isVideo = true
            case AVMEDIA_TYPE_AUDIO:
                target = audioIndex
                isVideo = false
            default: return true
            }
        } else if index == videoIndex || index == audioIndex {
            target = index
            isVideo = index == videoIndex
        } else {
            return true
        }
        guard let target, let to = format.stream(target), let from = format.stream(index) else { return true }
        var route = isVideo ? video : audio
        defer { if isVideo { video = route } else { audio = route } }
        let pts = av_rescale_q(packet.pts ?? packet.dts ?? 0, from.pointee.time_base, to.pointee.time_base)
        if index == route.previous, let at = route.changedAt, pts < at {
            AppLog.write("demux", "\(isVideo ? "video" : "audio") #\(target): a packet of stream #\(index) after the change to stream #\(route.source ?? target) (\(pts) < \(at)) left out")
            return false
        }
        if (route.source ?? target) != index {
            packet.newParameters = try? StreamParameters(copying: from, index: index)
            AppLog.write("demux", "\(isVideo ? "video" : "audio") #\(target) goes on from stream #\(index) (\(MediaProbe.codecName(from.pointee.codecpar)))")
            route = Route(source: index, previous: route.source == -1 ? nil : (route.source ?? target), changedAt: pts)
        }
        guard index != target else { return true }
        av_packet_rescale_ts(packet.pointer, from.pointee.time_base, to.pointee.time_base)
        packet.pointer.pointee.stream_index = Int32(target)
        return true
    }
}
