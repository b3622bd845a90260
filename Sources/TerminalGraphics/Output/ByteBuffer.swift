/// A growable byte buffer for one frame of terminal output.
///
/// Reused from frame to frame (``removeAll()`` keeps the capacity), so steady-state rendering
/// allocates nothing. Hot loops reserve their worst case once and then write through a
/// ``ByteWriter`` without per-byte capacity checks.
public final class ByteBuffer {
    private var storage: UnsafeMutablePointer<UInt8>
    public private(set) var capacity: Int
    public private(set) var count: Int = 0

    public init(capacity: Int = 64 * 1024) {
        self.capacity = max(64, capacity)
        self.storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    public var isEmpty: Bool { count == 0 }

    /// Forgets the contents, keeps the memory.
    public func removeAll() { count = 0 }

    /// Drops the bytes from `offset` on (keeps the first `offset`).
    public func truncate(to offset: Int) { count = min(count, max(0, offset)) }

    /// Makes room for at least `additional` more bytes.
    public func reserve(additional: Int) {
        let needed = count + additional
        guard needed > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    public func append(_ byte: UInt8) {
        reserve(additional: 1)
        storage[count] = byte
        count += 1
    }

    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(additional: bytes.count)
        UnsafeMutableRawPointer(storage + count).copyMemory(from: base, byteCount: bytes.count)
        count += bytes.count
    }

    public func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    public func append(_ other: ByteBuffer) {
        other.withUnsafeBytes { append($0) }
    }

    public func append(_ string: String) {
        var s = string
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Lends the written bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// A copy of the written bytes (tests, caches).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Runs `body` with a raw writer that may write up to `maxBytes` bytes without checks.
    ///
    /// The body must not write more than `maxBytes`; callers compute a worst case first.
    func write<R>(maxBytes: Int, _ body: (inout ByteWriter) -> R) -> R {
        reserve(additional: maxBytes)
        var writer = ByteWriter(start: storage + count)
        let result = body(&writer)
        count = writer.cursor - storage
        return result
    }
}

/// Unchecked writes into memory a ``ByteBuffer`` reserved; see ``ByteBuffer/write(maxBytes:_:)``.
struct ByteWriter {
    var cursor: UnsafeMutablePointer<UInt8>
    /// ``DecimalTable/table``, looked up once per writer: a global's accessor in the hot
    /// loops was a `swift_once` call on every number.
    private let decimals: UnsafePointer<DecimalTable.Entry>

    init(start: UnsafeMutablePointer<UInt8>) {
        cursor = start
        decimals = DecimalTable.table
    }

    @inline(__always) mutating func byte(_ b: UInt8) {
        cursor.pointee = b
        cursor += 1
    }

    @inline(__always) mutating func bytes(_ a: UInt8, _ b: UInt8) {
        cursor[0] = a
        cursor[1] = b
        cursor += 2
    }

    @inline(__always) mutating func bytes(_ a: UInt8, _ b: UInt8, _ c: UInt8) {
        cursor[0] = a
        cursor[1] = b
        cursor[2] = c
        cursor += 3
    }

    /// Writes the `length` low bytes of `packed` (little-endian); stores 4 bytes, so the
    /// reservation must leave 3 bytes of slack past the logical end.
    @inline(__always) mutating func packed(_ packed: UInt32, length: Int) {
        UnsafeMutableRawPointer(cursor).storeBytes(of: packed.littleEndian, as: UInt32.self)
        cursor += length
    }

    /// Writes the `length` low bytes of `packed` (little-endian); stores 8 bytes, so the
    /// reservation must leave 7 bytes of slack past the logical end.
    @inline(__always) mutating func packed(_ packed: UInt64, length: Int) {
        UnsafeMutableRawPointer(cursor).storeBytes(of: packed.littleEndian, as: UInt64.self)
        cursor += length
    }

    /// Writes a non-negative decimal number.
    @inline(__always) mutating func decimal(_ value: Int) {
        if value < 1000 {
            let entry = decimals[max(0, value)]
            packed(entry.digits, length: entry.length)
            return
        }
        // Digits written from the last one back, straight into the reservation (no scratch
        // buffer to zero and copy).
        var v = max(0, value)
        var n = 1
        var rest = v / 10
        while rest > 0 { n += 1; rest /= 10 }
        var p = cursor + n
        repeat {
            p -= 1
            p.pointee = UInt8(truncatingIfNeeded: 48 + v % 10)
            v /= 10
        } while v > 0
        cursor += n
    }
}

/// Precomputed decimal digits for 0...999, packed little-endian into a UInt32.
enum DecimalTable {
    struct Entry: Sendable {
        var digits: UInt32
        var length: Int
    }

    /// The digits of 0…999, in memory that lives as long as the process (read through a
    /// pointer by ``ByteWriter``; never written after its initialisation).
    nonisolated(unsafe) static let table: UnsafePointer<Entry> = {  // written once, then only read
        let p = UnsafeMutablePointer<Entry>.allocate(capacity: 1000)
        for value in 0..<1000 {
            let digits = Array(String(value).utf8)
            (p + value).initialize(to: Entry(digits: pack(digits), length: digits.count))
        }
        return UnsafePointer(p)
    }()

    /// `;NNN` for 0...255, the SGR parameter LUT (mpv vo_tct's `lut[256]`).
    static let semicolonEntries: [Entry] = (0..<256).map { value in
        let digits = Array(";\(value)".utf8)
        return Entry(digits: pack(digits), length: digits.count)
    }

    static func pack(_ bytes: [UInt8]) -> UInt32 {
        var v: UInt32 = 0
        for (i, b) in bytes.prefix(4).enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
        return v
    }
}
