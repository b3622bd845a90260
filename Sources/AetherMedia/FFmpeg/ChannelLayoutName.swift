import CFFmpeg

/// Human names for channel layouts.
public enum ChannelLayoutName {
    /// FFmpeg's description, e.g. `5.1(side)`. The corresponding C function is `av_channel_layout_describe`.
    package static func describe(_ layout: UnsafePointer<AVChannelLayout>) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let n = av_channel_layout_describe(layout, &buffer, buffer.count)
        guard n > 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The short name a player badge shows: `mono`, `2.0`, `5.1`, `7.1`, else `N ch`.
    /// Counts LFE channels as the `.1`.
    public static func short(channels: Int, lfe: Int) -> String {
        switch (channels, lfe) {
        case (1, 0): return "mono"
        case (2, 0): return "2.0"
        case (let c, let l) where l > 0 && c > l: return "\(c - l).\(l)"
        case (let c, 0) where c > 2: return "\(c).0"
        default: return "\(channels) ch"
        }
    }
}
