import AetherMedia
import CFFmpeg

/// A text subtitle decoder's header in the two forms the subtitle layer reads, each parsed on
/// first use and kept with the decoder (``CodecContext/parsedSubtitleHeader``).
private final class ParsedSubtitleHeader {
    var script: ASSScript?
    var header: ASSHeader??
}

extension CodecContext {
    private var parsedHeader: ParsedSubtitleHeader {
        if let parsed = parsedSubtitleHeader as? ParsedSubtitleHeader { return parsed }
        let parsed = ParsedSubtitleHeader()
        parsedSubtitleHeader = parsed
        return parsed
    }

    /// The ASS header a text subtitle decoder made when it opened (`subtitle_header`: the file's
    /// own for ASS/SSA, FFmpeg's default for SubRip, WebVTT and mov_text), parsed once.
    var assScript: ASSScript {
        if let script = parsedHeader.script { return script }
        let script: ASSScript = {
            guard let header = pointer.pointee.subtitle_header, pointer.pointee.subtitle_header_size > 0 else { return ASSScript() }
            let n = min(Int(pointer.pointee.subtitle_header_size), ASSScript.maxHeaderBytes)
            return ASSScript.parse(String(decoding: UnsafeBufferPointer(start: header, count: n), as: UTF8.self))
        }()
        parsedHeader.script = script
        return script
    }

    /// The same header as libass reads it (nil for decoders that make none); one object per
    /// decoder, shared by its cues.
    var assHeader: ASSHeader? {
        if let header = parsedHeader.header { return header }
        let made: ASSHeader? = {
            guard let header = pointer.pointee.subtitle_header, pointer.pointee.subtitle_header_size > 0 else { return nil }
            let n = min(Int(pointer.pointee.subtitle_header_size), ASSHeader.maxBytes)
            let id = pointer.pointee.codec_id
            return ASSHeader(bytes: Array(UnsafeBufferPointer(start: header, count: n)),
                             isNative: id == AV_CODEC_ID_ASS || id == AV_CODEC_ID_SSA)
        }()
        parsedHeader.header = .some(made)
        return made
    }
}
