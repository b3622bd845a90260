/// The encoder's previous input, to know an identical frame and the rows that did not change: a
/// hash per row (a copy of the picture would cost megabytes), its size, its transparent rectangles.
struct InputHistory {
    private var rowHashes: [UInt64] = []
    /// Per row of the current input: whether its pixels are those of the previous input.
    private(set) var rowUnchanged: [Bool] = []
    /// The previous input's size (zero: none, or forgotten).
    private(set) var size = PixelSize(width: 0, height: 0)
    /// The previous frame's transparent rectangles.
    var transparent: [PixelRect] = []

    /// The next input is compared with nothing.
    mutating func forget() { size = PixelSize(width: 0, height: 0) }

    /// Compares `image` with the previous input, row hash by row hash, and remembers its hashes
    /// and size.
    mutating func isIdentical(_ image: PixelImage) -> Bool {
        let rowBytes = image.width * image.format.bytesPerPixel
        let sameSize = size == image.size && rowHashes.count == image.height
        var identical = sameSize
        if rowHashes.count != image.height { rowHashes = [UInt64](repeating: 0, count: image.height) }
        if rowUnchanged.count != image.height { rowUnchanged = [Bool](repeating: false, count: image.height) }
        image.withUnsafeBytes { raw in
            guard let src = raw.baseAddress else { return }
            for y in 0..<image.height {
                let h = Self.hash(src + y * image.stride, count: rowBytes)
                rowUnchanged[y] = sameSize && rowHashes[y] == h
                if rowHashes[y] != h {
                    identical = false
                    rowHashes[y] = h
                }
            }
        }
        size = image.size
        return identical
    }

    /// A 64-bit hash of `count` bytes (multiply–xor–rotate over 8-byte words, four independent
    /// lanes so the multiplies overlap): two different rows hash alike about once in 2⁶⁴.
    static func hash(_ bytes: UnsafeRawPointer, count: Int) -> UInt64 {
        @inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
            let m = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            return (m << 29) | (m >> 35)
        }
        let seed = 0x9E37_79B9_7F4A_7C15 ^ UInt64(count)
        var h0 = seed, h1 = seed ^ 0x1, h2 = seed ^ 0x2, h3 = seed ^ 0x3
        var i = 0
        while i &+ 32 <= count {
            h0 = mix(h0, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h1 = mix(h1, bytes.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self))
            h2 = mix(h2, bytes.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self))
            h3 = mix(h3, bytes.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self))
            i &+= 32
        }
        var h = mix(mix(mix(h0, h1), h2), h3)
        while i &+ 8 <= count {
            h = mix(h, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i &+= 8
        }
        while i < count {
            h = (h ^ UInt64(bytes.load(fromByteOffset: i, as: UInt8.self))) &* 0xC4CE_B9FE_1A85_EC53
            i &+= 1
        }
        return h ^ (h >> 33)
    }
}
