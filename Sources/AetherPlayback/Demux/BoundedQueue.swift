import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A blocking FIFO bounded by count and by a per-item cost (bytes, seconds), shared by exactly one
/// producer thread and one consumer thread. `flush()` empties it (seek); `close()` wakes everyone
/// and makes `push`/`pop` return immediately (stop).
public final class BoundedQueue<Element>: Sendable {
    /// `items[head...]` are queued; slots before `head` are taken and already nil (a taken item
    /// must not stay alive in the array: a video frame holds its picture memory).
    private struct Contents {
        var items: [Element?] = []
        var head = 0
        var cost = 0
        var closed = false
        var count: Int { items.count - head }
    }
    private let state = GuardedCondition(Contents())
    private let maxCount: Int
    private let maxCost: Int
    private let costOf: @Sendable (Element) -> Int

    public init(maxCount: Int, maxCost: Int = .max, cost: @escaping @Sendable (Element) -> Int = { _ in 0 }) {
        self.maxCount = maxCount
        self.maxCost = maxCost
        self.costOf = cost
    }

    /// Longest a blocked push goes without re-checking its `interrupted` predicate.
    static var recheck: Double { 0.1 }

    public var count: Int { state.withLock { $0.count } }

    /// Waits until an item is queued (true), or `timeout` passes or the queue closes (false),
    /// without taking it.
    public func waitForItem(timeout: Double) -> Bool {
        state.withLock(when: { $0.closed || $0.count > 0 }, timeout: timeout) { s, _ in s.count > 0 }
    }

    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Threads blocked in a push or a pop now (``GuardedCondition/waiters``).
    package var waiters: Int { state.waiters }
    /// Items and cost queued, and the bounds, read together (the inspector's live tab).
    public var fill: (count: Int, cost: Int, maxCount: Int, maxCost: Int) {
        state.withLock { ($0.count, $0.cost, maxCount, maxCost) }
    }
    public var totalCost: Int { state.withLock { $0.cost } }

    private func isFull(_ s: Contents) -> Bool { s.count > 0 && (s.count >= maxCount || s.cost >= maxCost) }

    /// Appends `item`, waiting while the queue is full. Returns false if the queue was closed or
    /// `interrupted` became true. `interrupted` is checked whenever the queue changes (a pop, a
    /// flush, a close all wake the waiter) and at least every `recheck` seconds.
    @discardableResult
    public func push(_ item: Element, interrupted: () -> Bool = { false }) -> Bool {
        state.withLock(when: { $0.closed || !isFull($0) || interrupted() }, recheck: BoundedQueue.recheck) { s, _ in
            // Still full: `interrupted` held.
            if s.closed || isFull(s) { return false }
            s.items.append(item)
            s.cost += costOf(item)
            state.broadcast()
            return true
        }
    }

    /// Waits until an item could be pushed without waiting (true), or the queue closes or
    /// `interrupted` becomes true (false), checked as ``push(_:interrupted:)`` checks it. The one
    /// producer calls it before making an item that costs memory (a frame's picture), so it does
    /// not hold one more item than the queue while it waits.
    public func waitForRoom(interrupted: () -> Bool = { false }) -> Bool {
        state.withLock(when: { $0.closed || !isFull($0) || interrupted() }, recheck: BoundedQueue.recheck) { s, _ in
            !s.closed && !isFull(s)
        }
    }

    /// Removes the oldest item, waiting up to `timeout` seconds (nil = forever) for one.
    public func pop(timeout: Double? = nil) -> Element? {
        state.withLock(when: { $0.closed || $0.count > 0 }, timeout: timeout) { s, _ in
            s.count > 0 ? takeFirst(&s) : nil
        }
    }

    /// The oldest item without removing it.
    public func peek() -> Element? { state.withLock { $0.count > 0 ? $0.items[$0.head] : nil } }

    /// Removes the oldest item if `predicate` accepts it.
    public func pop(if predicate: (Element) -> Bool) -> Element? {
        state.withLock { s in
            guard s.count > 0, let first = s.items[s.head], predicate(first) else { return nil }
            return takeFirst(&s)
        }
    }

    private func takeFirst(_ s: inout Contents) -> Element {
        // Slots from `head` on are always filled (push appends non-nil items).
        let item = s.items[s.head].unsafelyUnwrapped
        s.items[s.head] = nil
        s.head += 1
        s.cost -= costOf(item)
        if s.head > 64, s.head * 2 > s.items.count {
            s.items.removeFirst(s.head)
            s.head = 0
        }
        state.broadcast()
        return item
    }

    public func flush() {
        state.update { s in
            s.items.removeAll()
            s.head = 0
            s.cost = 0
        }
    }

    /// Wakes every waiter without changing the contents (a blocked push re-checks its
    /// `interrupted` predicate).
    public func wake() { state.broadcast() }

    public func close() { state.update { $0.closed = true } }

    /// Calls `body` on every queued item, oldest first.
    public func forEach(_ body: (Element) -> Void) {
        state.withLock { s in s.items[s.head...].forEach { $0.map(body) } }
    }
}

/// What moves between the demux, decode and present threads: a payload or an end marker,
/// tagged with the seek generation (`serial`) it was produced under (ffplay's serial model).
enum QueueItem<Payload> {
    case item(Payload, serial: Int)
    case end(serial: Int)

    var serial: Int {
        switch self {
        case .item(_, let s), .end(let s): return s
        }
    }
}

/// The bounded queues between a session's threads: packets from the demux thread to each
/// decoder, frames from the video decoder to the presenter (one producer, one consumer each).
/// A demuxer cache holds its seconds of packets (mpv's default byte cap, 150 MiB); without
/// one, the packet queues hold a few seconds.
struct SessionQueues {
    let video: BoundedQueue<QueueItem<Packet>>
    let audio: BoundedQueue<QueueItem<Packet>>
    let frames: BoundedQueue<QueueItem<VideoFrame>>

    init(policy: SyncPolicy, cacheSeconds: Double) {
        let bytes = cacheSeconds > 0 ? max(policy.packetQueueBytes, 150 << 20) : policy.packetQueueBytes
        let videoPackets = cacheSeconds > 0 ? max(600, min(1 << 22, Int(saturating: cacheSeconds * 130))) : 600
        video = BoundedQueue(maxCount: videoPackets, maxCost: bytes) { if case .item(let p, _) = $0 { p.size } else { 0 } }
        audio = BoundedQueue(maxCount: max(4000, videoPackets * 4), maxCost: bytes / 2) { if case .item(let p, _) = $0 { p.size } else { 0 } }
        frames = BoundedQueue(maxCount: policy.frameQueueCapacity, maxCost: policy.frameQueueBytes) {
            if case .item(let frame, _) = $0 { frame.pixels?.count ?? 0 } else { 0 }
        }
    }

    /// Wakes a push waiting on a full packet queue (it gives up when a seek is pending or the
    /// session stopped) and a decoder waiting for input.
    func wakePackets() {
        video.wake()
        audio.wake()
    }

    /// A seek (the demux thread's alone): every queue empties under the new serial.
    func flush() {
        video.flush()
        audio.flush()
        frames.flush()
    }

    /// `stop()`: every push and pop returns at once from here on.
    func close() {
        video.close()
        audio.close()
        frames.close()
    }
}
