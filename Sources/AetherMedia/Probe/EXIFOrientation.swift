import AetherBase

/// The EXIF orientation of a JPEG (a phone's photo taken sideways is stored sideways, with the
/// orientation saying how to turn it): the APP1 `Exif` segment's first image file directory,
/// tag 0x0112. Read from the file's first ``window`` bytes, over at most ``maxSegments``
/// segments and ``maxEntries`` directory entries; anything malformed is no orientation.
public enum EXIFOrientation {
    static let window = 256 << 10
    static let maxSegments = 64
    static let maxEntries = 1024

    /// 1–8 (1: upright; 3, 6, 8: turned; 2, 4, 5, 7: mirrored), nil when the file says none.
    public static func read(path: String) -> Int? {
        guard let bytes = FileBytes.prefix(path: path, limit: window) else { return nil }
        return read(bytes)
    }

    public static func read(_ b: [UInt8]) -> Int? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        for _ in 0..<maxSegments {
            guard i + 4 <= b.count, b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xD9 || marker == 0xDA { return nil }   // the end, or the picture's data
            if marker == 0x01 || (0xD0...0xD7).contains(marker) || marker == 0xFF {
                i += marker == 0xFF ? 1 : 2
                continue
            }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            let data = (i + 4)..<(i + 2 + length)
            if marker == 0xE1, data.count > 14, Array(b[data.lowerBound..<(data.lowerBound + 6)]) == Array("Exif\0\0".utf8) {
                return tiffOrientation(b, in: (data.lowerBound + 6)..<data.upperBound)
            }
            i += 2 + length
        }
        return nil
    }

    /// Tag 0x0112 of the first directory of the TIFF structure in `r`.
    static func tiffOrientation(_ b: [UInt8], in r: Range<Int>) -> Int? {
        guard r.count >= 8 else { return nil }
        let little: Bool
        switch (b[r.lowerBound], b[r.lowerBound + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= r.lowerBound, at + 2 <= r.upperBound else { return nil }
            return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(little ? at + 2 : at), let lo = u16(little ? at : at + 2) else { return nil }
            return hi << 16 | lo
        }
        guard u16(r.lowerBound + 2) == 42, let offset = u32(r.lowerBound + 4), offset < r.count,
              let count = u16(r.lowerBound + offset) else { return nil }
        for k in 0..<min(count, maxEntries) {
            let entry = r.lowerBound + offset + 2 + 12 * k
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) else { return nil }
                return value
            }
        }
        return nil
    }

    /// The angle `av_display_rotation_set` takes (clockwise degrees) for the orientations that
    /// are turns only, as libavcodec's own EXIF reader sets them (6: 90, the top of the picture
    /// is its stored left side); nil for upright and mirrored ones.
    public static func rotation(_ orientation: Int) -> Double? {
        switch orientation {
        case 3: return 180
        case 6: return 90
        case 8: return -90
        default: return nil
        }
    }
}
