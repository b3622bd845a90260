import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Decodes subtitle packets into cues: text (ASS events, cut at `maxCueCharacters`, text that is
/// not UTF-8 read as Windows-1252) and bitmaps (cropped to their opaque pixels, refused past
/// `maxBitmapSide`, placed on the video's picture).
///
/// One per reader of packets, used on that reader's thread only (the demux thread, the
/// look-behind's queue): it opens a libavcodec decoder for each stream on its first packet and
/// keeps it, with the timeline the packets are stamped on and the picture bitmaps are placed on.
package final class SubtitleDecoder {
    static let maxCueCharacters = 4_000
    /// Largest subtitle canvas side scanned (PGS is 1920×1080; DVB up to 4096).
    static let maxBitmapSide = 8192
    /// Longest a cue may last (teletext-style "until replaced" cues are cut here).
    static let maxCueDuration = 600.0

    let timeline: Timeline
    /// The video's size (0: none; bitmaps are placed on their own canvas).
    let videoWidth: Int
    let videoHeight: Int
    /// Each stream's decoder, opened on its first packet.
    private var decoders: [Int: CodecContext] = [:]

    init(timeline: Timeline, videoWidth: Int, videoHeight: Int) {
        self.timeline = timeline
        self.videoWidth = videoWidth
        self.videoHeight = videoHeight
    }

    /// The cues of `packet`, a packet of `stream`; none when the stream's decoder cannot be opened.
    func cues(of packet: Packet, stream: UnsafeMutablePointer<AVStream>) -> [SubtitleCue] {
        guard let par = stream.pointee.codecpar else { return [] }
        let index = packet.streamIndex
        if decoders[index] == nil {
            decoders[index] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
        }
        guard let decoder = decoders[index] else { return [] }
        return SubtitleDecoder.decode(packet, decoder: decoder, stream: stream, timeline: timeline,
                                      width: videoWidth, height: videoHeight)
    }

    /// Closes every stream's decoder.
    func closeAll() { decoders = [:] }

    /// `avcodec_decode_subtitle2` with AetherEngine's timing rules: start = pts + start_display_time;
    /// end from end_display_time, else the packet duration, else 5 s.
    package static func decode(_ packet: Packet, decoder: CodecContext, stream: UnsafeMutablePointer<AVStream>,
                       timeline: Timeline, width: Int, height: Int, origin: Double? = nil) -> [SubtitleCue] {
        decode(packet, decoder: decoder, timeBase: stream.pointee.time_base, timeline: timeline,
               width: width, height: height, origin: origin)
    }

    package static func decode(_ packet: Packet, decoder: CodecContext, timeBase tb: AVRational,
                       timeline: Timeline, width: Int, height: Int, origin: Double? = nil) -> [SubtitleCue] {
        if decoder.pointer.pointee.codec_id == AV_CODEC_ID_HDMV_PGS_SUBTITLE, let data = packet.pointer.pointee.data,
           PGSObjects.largestSide(UnsafeBufferPointer(start: data, count: Int(max(0, packet.pointer.pointee.size)))) > maxBitmapSide {
            // libavcodec would allocate the whole canvas (twice) before we could refuse it.
            AppLog.write("sub", "a PGS object larger than \(maxBitmapSide) pixels a side is left out")
            return []
        }
        var sub = AVSubtitle()
        var got: Int32 = 0
        var result = avcodec_decode_subtitle2(decoder.pointer, &sub, &got, packet.pointer)
        if result < 0, let converted = windows1252Packet(packet, decoder: decoder) {
            // Text decoders refuse text that is not UTF-8 (an embedded track muxed from a
            // Windows-1252 file): read it as Windows-1252 instead of losing the cue.
            result = avcodec_decode_subtitle2(decoder.pointer, &sub, &got, converted.pointer)
        }
        guard result >= 0, got != 0 else { return [] }
        defer { avsubtitle_free(&sub) }
        let line = origin.map { Timeline(origin: $0) } ?? timeline
        guard let pts = line.seconds(packet.pts, tb) ?? line.seconds(sub.pts, AVRational(num: 1, den: AV_TIME_BASE)),
              pts.sane(in: -1e9...1e9) != nil else { return [] }
        let start = pts + Double(sub.start_display_time) / 1000
        var end: Double
        if sub.end_display_time > sub.start_display_time, sub.end_display_time != UInt32.max {
            end = pts + Double(sub.end_display_time) / 1000
        } else if packet.duration > 0, let d = Timeline.sourceSeconds(packet.duration, tb) {
            end = pts + d
        } else {
            end = start + 5
        }
        end = min(end, start + maxCueDuration)
        var cues: [SubtitleCue] = []
        let frameW = width > 0 ? width : Int(decoder.pointer.pointee.width)
        let frameH = height > 0 ? height : Int(decoder.pointer.pointee.height)
        let placement = decoder.pointer.pointee.codec_id == AV_CODEC_ID_WEBVTT ? CuePlacement.webVTT(packet.pointer) : nil
        if sub.num_rects == 0 {
            // An empty bitmap event: clears what is showing.
            return [SubtitleCue(start: start, end: start, content: .bitmap(SubtitleBitmap(x: 0, y: 0, width: 0, height: 0, pixelWidth: 0, pixelHeight: 0, rgba: [])))]
        }
        for i in 0..<Int(sub.num_rects) {
            guard let rect = sub.rects[i] else { continue }
            switch rect.pointee.type {
            case SUBTITLE_ASS:
                if let ass = rect.pointee.ass {
                    var styled = ASSEvent.parse(limitedCString(ass), script: decoder.assScript)
                    if let placement {
                        styled.alignment = placement.alignment
                        styled.position = placement.position
                    }
                    let text = limited(styled.plainText)
                    let source = decoder.assHeader.map { ASSSource(header: $0, event: limitedEvent(ass)) }
                    if !text.trimmingWhitespaceAndNewlines().isEmpty {
                        if text != styled.plainText { styled.runs = [StyledSubtitle.Run(text: text)] }  // cut: plain
                        var cue = SubtitleCue(start: start, end: end, content: .text(text), styled: styled, ass: source)
                        cue.placement = placement
                        cues.append(cue)
                    } else if let source {
                        // No text (a drawing, a sign made of shapes): only libass can show it;
                        // text cells leave it out (``SubtitleCue/hasVisibleText``).
                        cues.append(SubtitleCue(start: start, end: end, content: .text(""), styled: nil, ass: source))
                    }
                }
            case SUBTITLE_TEXT:
                if let t = rect.pointee.text {
                    let text = limited(TextSanitizer.clean(limitedCString(t), keepNewlines: true))
                    if !text.isEmpty { cues.append(SubtitleCue(start: start, end: end, content: .text(text))) }
                }
            case SUBTITLE_BITMAP:
                if let bitmap = Self.bitmap(rect.pointee, frameWidth: frameW, frameHeight: frameH) {
                    cues.append(SubtitleCue(start: start, end: end, content: .bitmap(bitmap)))
                }
            default:
                continue
            }
        }
        return cues
    }

    /// An event line for libass, read no further than ``ASSSource/maxEventBytes`` (cut there).
    static func limitedEvent(_ p: UnsafePointer<CChar>) -> String {
        let n = strnlen(p, ASSSource.maxEventBytes)
        return p.withMemoryRebound(to: UInt8.self, capacity: n) {
            let bytes = UnsafeBufferPointer(start: $0, count: n)
            return String(validating: bytes, as: UTF8.self) ?? windows1252(bytes)
        }
    }

    /// At most `maxCueCharacters` of a cue's text (a 4 MiB line is cut, marked with `…`).
    static func limited(_ text: String) -> String {
        guard text.unicodeScalars.count > maxCueCharacters else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(maxCueCharacters))) + "…"
    }

    /// A C string read no further than 4 × `maxCueCharacters` bytes. Text that is not UTF-8
    /// (an embedded SubRip track muxed from a Windows-1252 file) is read as Windows-1252 rather
    /// than turned into replacement characters.
    static func limitedCString(_ p: UnsafePointer<CChar>) -> String {
        let n = strnlen(p, 4 * maxCueCharacters)
        return p.withMemoryRebound(to: UInt8.self, capacity: n) {
            let bytes = UnsafeBufferPointer(start: $0, count: n)
            return String(validating: bytes, as: UTF8.self) ?? windows1252(bytes)
        }
    }

    /// A copy of a text subtitle packet whose bytes are not UTF-8, converted from Windows-1252;
    /// nil for bitmap codecs and for packets that are UTF-8 already.
    static func windows1252Packet(_ packet: Packet, decoder: CodecContext) -> Packet? {
        let props = avcodec_descriptor_get(decoder.pointer.pointee.codec_id)?.pointee.props ?? 0
        guard props & AV_CODEC_PROP_TEXT_SUB != 0, let data = packet.pointer.pointee.data, packet.size > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: packet.size)
        guard String(validating: bytes, as: UTF8.self) == nil,
              let copy = try? Packet(bytes: Array(windows1252(bytes).utf8)) else { return nil }
        copy.pointer.pointee.pts = packet.pointer.pointee.pts
        copy.pointer.pointee.dts = packet.pointer.pointee.dts
        copy.pointer.pointee.duration = packet.pointer.pointee.duration
        return copy
    }

    /// Windows-1252 → Unicode: Latin-1, with 0x80–0x9F mapped to the punctuation Windows puts
    /// there (undefined ones become U+FFFD).
    static func windows1252(_ bytes: some Sequence<UInt8>) -> String {
        let high: [UInt32] = [0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
                              0x0152, 0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                              0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178]
        var out = String.UnicodeScalarView()
        for b in bytes {
            let v = (0x80...0x9F).contains(b) ? high[Int(b) - 0x80] : UInt32(b)
            out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
        }
        return String(out)
    }

    /// The palette walk: indices in `data[0]`, a `[B,G,R,A]` palette in `data[1]`; cropped to the
    /// pixels with alpha ≥ 8 and written as premultiplied RGBA.
    static func bitmap(_ rect: AVSubtitleRect, frameWidth: Int, frameHeight: Int) -> SubtitleBitmap? {
        let w = Int(rect.w), h = Int(rect.h), stride = Int(rect.linesize.0)
        guard w > 0, h > 0, w <= maxBitmapSide, h <= maxBitmapSide, stride >= w,
              let indices = rect.data.0, let palette = rect.data.1 else { return nil }
        let colours = Int(max(0, rect.nb_colors))
        func alpha(_ i: Int) -> UInt8 { i < colours ? palette[i * 4 + 3] : 0 }
        var minX = w, minY = h, maxX = -1, maxY = -1
        for y in 0..<h {
            for x in 0..<w where alpha(Int(indices[y * stride + x])) >= 8 {
                minX = min(minX, x)
                maxX = max(maxX, x)
                minY = min(minY, y)
                maxY = max(maxY, y)
            }
        }
        guard maxX >= minX, maxY >= minY else { return nil }
        let cw = maxX - minX + 1, ch = maxY - minY + 1
        var rgba = [UInt8](repeating: 0, count: cw * ch * 4)
        for y in 0..<ch {
            for x in 0..<cw {
                let i = Int(indices[(y + minY) * stride + x + minX])
                guard i < colours else { continue }
                let b = UInt16(palette[i * 4]), g = UInt16(palette[i * 4 + 1]), r = UInt16(palette[i * 4 + 2]), a = UInt16(palette[i * 4 + 3])
                let o = (y * cw + x) * 4
                rgba[o] = UInt8(r * a / 255)
                rgba[o + 1] = UInt8(g * a / 255)
                rgba[o + 2] = UInt8(b * a / 255)
                rgba[o + 3] = UInt8(a)
            }
        }
        let fw = Double(frameWidth > 0 ? frameWidth : Int(rect.x) + w)
        let fh = Double(frameHeight > 0 ? frameHeight : Int(rect.y) + h)
        return SubtitleBitmap(x: Double(Int(rect.x) + minX) / fw, y: Double(Int(rect.y) + minY) / fh,
                              width: Double(cw) / fw, height: Double(ch) / fh,
                              pixelWidth: cw, pixelHeight: ch, rgba: rgba)
    }
}

/// The sizes PGS object definitions claim, read before libavcodec decodes them: its decoder
/// allocates an object's whole canvas (and copies it), so a 12,800-pixel square costs hundreds
/// of megabytes before the bitmap could be refused.
enum PGSObjects {
    /// The largest width or height any object definition segment (type 0x15, first fragment) in
    /// `packet` claims; 0 when there is none. Segments: type (1 byte), length (2), payload; an
    /// object definition's payload: id (2), version (1), sequence flags (1, 0x80 first
    /// fragment), data length (3), width (2), height (2). A truncated segment ends the walk.
    static func largestSide(_ packet: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0, largest = 0
        while offset + 3 <= packet.count {
            let type = packet[offset], length = Int(packet[offset + 1]) << 8 | Int(packet[offset + 2])
            let payload = offset + 3
            if type == 0x15, length >= 11, payload + 11 <= packet.count, packet[payload + 3] & 0x80 != 0 {
                let width = Int(packet[payload + 7]) << 8 | Int(packet[payload + 8])
                let height = Int(packet[payload + 9]) << 8 | Int(packet[payload + 10])
                largest = max(largest, width, height)
            }
            offset = payload + length
        }
        return largest
    }
}
