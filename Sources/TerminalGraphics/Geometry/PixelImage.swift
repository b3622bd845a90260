/// The pixel layouts the renderers accept.
public enum PixelFormat: Sendable, Hashable {
    /// 3 bytes per pixel: R, G, B.
    case rgb24
    /// 4 bytes per pixel: R, G, B, A. Alpha is ignored (the renderers draw opaque pixels).
    case rgba32

    public var bytesPerPixel: Int {
        switch self {
        case .rgb24: 3
        case .rgba32: 4
        }
    }
}

/// Why a ``PixelImage`` could not be made.
public enum PixelImageError: Error, Sendable, Equatable {
    case invalidDimensions(width: Int, height: Int)
    case strideTooSmall(stride: Int, minimum: Int)
    case bufferTooSmall(count: Int, needed: Int)
}

/// An RGB(A) picture: owned bytes, or a view of bytes the caller keeps alive.
///
/// A borrowed image is valid only while the caller's buffer is (for example inside the
/// closure that lends an `AVFrame`'s plane); it must not be stored. The renderers never
/// keep a reference to an image after `render`/`encode` returns.
public struct PixelImage {
    public let width: Int
    public let height: Int
    /// Bytes from the start of one row to the start of the next.
    public let stride: Int
    public let format: PixelFormat

    private enum Storage {
        case owned([UInt8])
        case borrowed(UnsafeRawBufferPointer)
    }
    private let storage: Storage

    /// An image that owns its bytes.
    public init(width: Int, height: Int, format: PixelFormat = .rgb24, stride: Int? = nil,
                pixels: [UInt8]) throws(PixelImageError) {
        let stride = stride ?? width * format.bytesPerPixel
        try Self.validate(width: width, height: height, format: format, stride: stride, count: pixels.count)
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        self.storage = .owned(pixels)
    }

    /// A view of bytes owned by the caller; see the type's note on lifetime.
    public init(borrowing bytes: UnsafeRawBufferPointer, width: Int, height: Int,
                format: PixelFormat = .rgb24, stride: Int? = nil) throws(PixelImageError) {
        let stride = stride ?? width * format.bytesPerPixel
        try Self.validate(width: width, height: height, format: format, stride: stride, count: bytes.count)
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        self.storage = .borrowed(bytes)
    }

    private static func validate(width: Int, height: Int, format: PixelFormat, stride: Int,
                                 count: Int) throws(PixelImageError) {
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw .invalidDimensions(width: width, height: height)
        }
        let rowBytes = width * format.bytesPerPixel
        guard stride >= rowBytes else { throw .strideTooSmall(stride: stride, minimum: rowBytes) }
        let needed = stride * (height - 1) + rowBytes
        guard count >= needed else { throw .bufferTooSmall(count: count, needed: needed) }
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Lends the pixel bytes (at least `stride * (height - 1) + width * bytesPerPixel` of them).
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch storage {
        case .owned(let array):
            // `withUnsafeBytes` on Array is rethrows-untyped; route the typed error through a Result.
            let result: Result<R, E> = array.withUnsafeBytes { raw in
                do throws(E) { return .success(try body(raw)) } catch { return .failure(error) }
            }
            return try result.get()
        case .borrowed(let raw):
            return try body(raw)
        }
    }

    /// Calls `body` with the RGB of every `step`-th pixel of every `step`-th row (palette and
    /// scene statistics sample the picture rather than read all of it).
    @inline(__always)
    func forEachSample(step: Int, _ body: (UInt8, UInt8, UInt8) -> Void) {
        let bpp = format.bytesPerPixel
        let step = max(1, step)
        withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            let px = base.assumingMemoryBound(to: UInt8.self)
            for y in Swift.stride(from: 0, to: height, by: step) {
                let row = px + y * stride
                for x in Swift.stride(from: 0, to: width, by: step) {
                    let p = row + x * bpp
                    body(p[0], p[1], p[2])
                }
            }
        }
    }

    /// The RGB of one pixel (for tests and slow paths; the renderers read rows directly).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        withUnsafeBytes { raw in
            let o = y * stride + x * format.bytesPerPixel
            return (raw[o], raw[o + 1], raw[o + 2])
        }
    }
}
