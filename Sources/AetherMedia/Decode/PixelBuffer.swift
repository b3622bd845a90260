
import AetherBase
/// The packed RGB24 pixels of one ``VideoFrame``.
///
/// Buffers come from a ``PixelBufferPool``: when the last frame holding one is gone (the host
/// painted it, or the mailbox replaced it), the memory goes back to the pool and the next frame
/// of the same size is converted into it. Steady playback therefore allocates no picture memory
/// per frame; before the pool, every frame allocated a new 2.7 MB array on the video thread and
/// freed it on the render thread, which glibc's per-thread arenas answered by growing (peak RSS
/// 288 MB on 1080p sixel playback).
///
/// The bytes are written once, by the video thread, before the frame is handed over; from then
/// on they are only read, from any thread.
public final class PixelBuffer: @unchecked Sendable {  // `base` is written by one thread before the frame is published, then only read
    /// Bytes in the buffer (`width * height * 3`).
    public let count: Int
    /// Bytes allocated past ``count``: libswscale's vectorised unscaled YUV 4:2:0/4:2:2 → RGB24
    /// converter writes whole 8-pixel groups, up to 42 bytes past the last row of a tightly
    /// packed picture (measured over widths 2…300 with libswscale 6.7; valgrind reports the
    /// writes). Without the slack those bytes land on the allocator's bookkeeping.
    static let slack = 64
    package let base: UnsafeMutablePointer<UInt8>
    private let pool: PixelBufferPool?

    /// A buffer of `count` bytes that is freed, not pooled, when it goes.
    public convenience init(count: Int) { self.init(count: count, pool: nil) }

    init(count: Int, pool: PixelBufferPool?) {
        self.count = max(0, count)
        self.pool = pool
        base = pool?.memory(count: self.count) ?? .allocate(capacity: self.count + Self.slack)
    }

    deinit {
        if let pool { pool.recycle(base, count: count) } else { base.deallocate() }
    }

    /// Reads the bytes; the pointer is valid only inside `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes writable, for the one writer before the frame is published.
    var mutableBytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }

    /// A copy of the bytes (tests, screenshots; not for the playback path).
    public func copyBytes() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

/// Picture memory kept for reuse: at most ``limit`` free blocks, all of the size asked for
/// last (a resize frees the old size's blocks).
public final class PixelBufferPool: Sendable {
    /// Free blocks kept: the frames in the queue, the mailbox and the one being painted, with
    /// a little room.
    public let limit: Int
    private struct Block {
        var pointer: UnsafeMutablePointer<UInt8>
        var count: Int
    }
    private struct State {
        var free: [Block] = []
        var allocated = 0
        var reused = 0
    }
    private let state = Guarded(State())

    public init(limit: Int = 8) { self.limit = max(0, limit) }

    deinit {
        state.withLock { s in
            for block in s.free { block.pointer.deallocate() }
            s.free.removeAll()
        }
    }

    /// A buffer of `count` bytes, from the pool when it has one of that size.
    public func take(count: Int) -> PixelBuffer { PixelBuffer(count: count, pool: self) }

    /// Blocks allocated and reused so far (for tests and the stats).
    public var counts: (allocated: Int, reused: Int) { state.withLock { ($0.allocated, $0.reused) } }

    fileprivate func memory(count: Int) -> UnsafeMutablePointer<UInt8> {
        let (found, stale) = state.withLock { s -> (Block?, [Block]) in
            if let i = s.free.lastIndex(where: { $0.count == count }) {
                s.reused += 1
                return (s.free.remove(at: i), [])
            }
            s.allocated += 1
            // Another size now: the old blocks will not be asked for again.
            defer { s.free.removeAll() }
            return (nil, s.free)
        }
        for block in stale { block.pointer.deallocate() }
        return found?.pointer ?? .allocate(capacity: count + PixelBuffer.slack)
    }

    fileprivate func recycle(_ pointer: UnsafeMutablePointer<UInt8>, count: Int) {
        let kept = state.withLock { s -> Bool in
            guard s.free.count < limit, s.free.allSatisfy({ $0.count == count }) else { return false }
            s.free.append(Block(pointer: pointer, count: count))
            return true
        }
        if !kept { pointer.deallocate() }
    }
}
