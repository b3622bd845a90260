import Foundation

/// A blocking FIFO bounded by count and by a per-item cost (bytes, seconds), shared by exactly one
/// producer thread and one consumer thread. `flush()` empties it (seek); `close()` wakes everyone
/// and makes `push`/`pop` return immediately (stop).
public final class BoundedQueue<Element>: @unchecked Sendable {  // all state is guarded by `condition`
    /// `items[head...]` are queued; slots before `head` are taken and already nil (a taken item
    /// must not stay alive in the array: a video frame holds its picture memory).
    private var items: [Element?] = []
    private var head = 0
    private var cost = 0
    private var closed = false
    private let condition = NSCondition()
    private let maxCount: Int
    private let maxCost: Int
    private let costOf: (Element) -> Int

    public init(maxCount: Int, maxCost: Int = .max, cost: @escaping (Element) -> Int = { _ in 0 }) {
        self.maxCount = maxCount
        self.maxCost = maxCost
        self.costOf = cost
    }

    /// Longest a blocked push goes without re-checking its `interrupted` predicate.
    static var recheck: Double { 0.1 }

    public var count: Int { condition.withLock { items.count - head } }

    /// Waits until an item is queued (true), or `timeout` passes or the queue closes (false),
    /// without taking it.
    public func waitForItem(timeout: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while items.count == head {
            if closed || !condition.wait(until: deadline) { return items.count > head }
        }
        return true
    }

    public var isClosed: Bool { condition.withLock { closed } }
    /// Items and cost queued, and the bounds, read together (the inspector's live tab).
    public var fill: (count: Int, cost: Int, maxCount: Int, maxCost: Int) {
        condition.withLock { (items.count - head, cost, maxCount, maxCost) }
    }
    public var totalCost: Int { condition.withLock { cost } }

    /// Appends `item`, waiting while the queue is full. Returns false if the queue was closed or
    /// `interrupted` became true. `interrupted` is checked whenever the queue changes (a pop, a
    /// flush, a close all wake the waiter) and at least every `recheck` seconds.
    @discardableResult
    public func push(_ item: Element, interrupted: () -> Bool = { false }) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, items.count - head > 0, items.count - head >= maxCount || cost >= maxCost {
            if interrupted() { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: BoundedQueue.recheck))
        }
        if closed { return false }
        items.append(item)
        cost += costOf(item)
        condition.broadcast()
        return true
    }

    /// Removes the oldest item, waiting up to `timeout` seconds (nil = forever) for one.
    public func pop(timeout: Double? = nil) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        while items.count == head {
            if closed { return nil }
            if let deadline {
                if !condition.wait(until: deadline) && items.count == head { return nil }
            } else {
                condition.wait()
            }
        }
        return takeFirst()
    }

    /// The oldest item without removing it.
    public func peek() -> Element? { condition.withLock { items.count > head ? items[head] : nil } }

    /// Removes the oldest item if `predicate` accepts it.
    public func pop(if predicate: (Element) -> Bool) -> Element? {
        condition.withLock {
            guard items.count > head, let first = items[head], predicate(first) else { return nil }
            return takeFirst()
        }
    }

    private func takeFirst() -> Element {
        // Slots from `head` on are always filled (push appends non-nil items).
        let item = items[head].unsafelyUnwrapped
        items[head] = nil
        head += 1
        cost -= costOf(item)
        if head > 64, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }

    public func flush() {
        condition.withLock {
            items.removeAll()
            head = 0
            cost = 0
            condition.broadcast()
        }
    }

    /// Wakes every waiter without changing the contents (a blocked push re-checks its
    /// `interrupted` predicate).
    public func wake() { condition.withLock { condition.broadcast() } }

    public func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// Calls `body` on every queued item, oldest first.
    public func forEach(_ body: (Element) -> Void) {
        condition.withLock { items[head...].forEach { $0.map(body) } }
    }
}
