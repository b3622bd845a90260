/// A growable byte buffer for one frame of terminal output (TerminalGraphics' drivers and
/// encoders write it; the screen's writer sends it).
///
/// Reused from frame to frame (``removeAll()`` keeps the capacity), so steady-state rendering
/// allocates nothing. Hot loops reserve their worst case once and then write through a
/// ``ByteWriter`` without per-byte capacity checks.
public final class ByteBuffer {
    private var storage: UnsafeMutablePointer<UInt8>
    public private(set) var capacity: Int
    /// The bytes written.
    public var count: Int { written }
    private var written = 0
    /// ``DecimalTable/table``, looked up once per buffer (the global's accessor is a
    /// `swift_once` check on every use).
    private let decimals = DecimalTable.table

    public init(capacity: Int = 64 * 1024) {
        self.capacity = max(64, capacity)
        self.storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    public var isEmpty: Bool { count == 0 }

    /// Forgets the contents, keeps the memory.
    public func removeAll() { written = 0 }

    /// Drops the bytes from `offset` on (keeps the first `offset`).
    public func truncate(to offset: Int) { written = min(written, max(0, offset)) }

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
        storage[written] = byte
        written += 1
    }

    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(additional: bytes.count)
        UnsafeMutableRawPointer(storage + count).copyMemory(from: base, byteCount: bytes.count)
        written += bytes.count
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
    /// Inlinable, so the caller's loops and writes compile as one: across the module boundary
    /// each call had been a closure through an unspecialised generic, and the buffer's own
    /// fields are touched only in the two calls around it (inlined, each access of a class's
    /// field from another module is checked for exclusivity at run time).
    @inlinable package func write<R>(maxBytes: Int, _ body: (inout ByteWriter) -> R) -> R {
        var writer = startWriting(maxBytes: maxBytes)
        let result = body(&writer)
        endWriting(at: writer.cursor)
        return result
    }

    /// Reserves `maxBytes` and returns a writer at their start.
    @usableFromInline package func startWriting(maxBytes: Int) -> ByteWriter {
        reserve(additional: maxBytes)
        return ByteWriter(start: storage + written, decimals: decimals)
    }

    /// What was written since ``startWriting(maxBytes:)`` ends at `end`.
    @usableFromInline package func endWriting(at end: UnsafeMutablePointer<UInt8>) {
        written = end - storage
    }
}

/// Unchecked writes into memory a ``ByteBuffer`` reserved; see ``ByteBuffer/write(maxBytes:_:)``.
@usableFromInline package struct ByteWriter {
    @usableFromInline package var cursor: UnsafeMutablePointer<UInt8>
    /// ``DecimalTable/table``, looked up once per writer: a global's accessor in the hot
    /// loops was a `swift_once` call on every number.
    @usableFromInline package let decimals: UnsafePointer<DecimalTable.Entry>

    package init(start: UnsafeMutablePointer<UInt8>, decimals: UnsafePointer<DecimalTable.Entry> = DecimalTable.table) {
        cursor = start
        self.decimals = decimals
    }

    @inlinable @inline(__always) package mutating func byte(_ b: UInt8) {
        cursor.pointee = b
        cursor += 1
    }

    @inlinable @inline(__always) package mutating func bytes(_ a: UInt8, _ b: UInt8) {
        cursor[0] = a
        cursor[1] = b
        cursor += 2
    }

    @inlinable @inline(__always) package mutating func bytes(_ a: UInt8, _ b: UInt8, _ c: UInt8) {
        cursor[0] = a
        cursor[1] = b
        cursor[2] = c
        cursor += 3
    }

    /// Writes the `length` low bytes of `packed` (little-endian); stores 4 bytes, so the
    /// reservation must leave 3 bytes of slack past the logical end.
    @inlinable @inline(__always) package mutating func packed(_ packed: UInt32, length: Int) {
        UnsafeMutableRawPointer(cursor).storeBytes(of: packed.littleEndian, as: UInt32.self)
        cursor += length
    }

    /// Writes the `length` low bytes of `packed` (little-endian); stores 8 bytes, so the
    /// reservation must leave 7 bytes of slack past the logical end.
    @inlinable @inline(__always) package mutating func packed(_ packed: UInt64, length: Int) {
        UnsafeMutableRawPointer(cursor).storeBytes(of: packed.littleEndian, as: UInt64.self)
        cursor += length
    }

    /// Writes a non-negative decimal number.
    @inlinable @inline(__always) package mutating func decimal(_ value: Int) {
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
@usableFromInline package enum DecimalTable {
    @usableFromInline package struct Entry: Sendable {
        @usableFromInline package var digits: UInt32
        @usableFromInline package var length: Int

        package init(digits: UInt32, length: Int) {
            self.digits = digits
            self.length = length
        }
    }

    /// The digits of 0…999, in memory that lives as long as the process (read through a
    /// pointer by ``ByteWriter``; never written after its initialisation).
    @usableFromInline nonisolated(unsafe) package static let table: UnsafePointer<Entry> = {  // written once, then only read
        let p = UnsafeMutablePointer<Entry>.allocate(capacity: 1000)
        for value in 0..<1000 {
            let digits = Array(String(value).utf8)
            (p + value).initialize(to: Entry(digits: pack(digits), length: digits.count))
        }
        return UnsafePointer(p)
    }()

    /// `;NNN` for 0...255, the SGR parameter LUT (mpv vo_tct's `lut[256]`).
    package static let semicolonEntries: [Entry] = (0..<256).map { value in
        let digits = Array(";\(value)".utf8)
        return Entry(digits: pack(digits), length: digits.count)
    }

    package static func pack(_ bytes: [UInt8]) -> UInt32 {
        var v: UInt32 = 0
        for (i, b) in bytes.prefix(4).enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
        return v
    }
}
