import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct BoundedQueueTests {
    @Test func firstInFirstOut() {
        let q = BoundedQueue<Int>(maxCount: 10)
        for i in 0..<5 { #expect(q.push(i)) }
        #expect((0..<5).map { _ in q.pop(timeout: 0) } == [0, 1, 2, 3, 4])
        #expect(q.pop(timeout: 0.01) == nil)
    }

    @Test func aPoppedItemIsReleased() {
        // Frames hold their picture memory: a queue that kept popped items alive held 60 frames
        // (170 MB at 1280x720) during sixel playback.
        final class Item {}
        let q = BoundedQueue<Item>(maxCount: 4)
        weak var popped: Item?
        do {
            let item = Item()
            popped = item
            q.push(item)
            q.push(Item())
        }
        _ = q.pop(timeout: 0)
        #expect(popped == nil, "the queue still holds a popped item")
        #expect(q.count == 1)
    }

    @Test func pixelBuffersAreReusedOnceReleased() {
        let pool = PixelBufferPool(limit: 2)
        var first: PixelBuffer? = pool.take(count: 300)
        let address = first?.withUnsafeBytes { $0.baseAddress }
        first = nil
        let second = pool.take(count: 300)
        #expect(second.withUnsafeBytes { $0.baseAddress } == address)
        #expect(pool.counts == (allocated: 1, reused: 1))
        let held = [pool.take(count: 300), pool.take(count: 300)]  // the pool is empty: new memory
        #expect(pool.counts.allocated == 3 && held.count == 2)
        let other = pool.take(count: 600)  // another size drops the old size's free blocks
        #expect(other.count == 600 && pool.counts.allocated == 4)
        _ = second
    }

    @Test func aFullQueueBlocksUntilAPop() {
        let q = BoundedQueue<Int>(maxCount: 2)
        q.push(1); q.push(2)
        let pushed = Guarded(false)
        // The push asks `interrupted` only while it waits on a full queue: that it was asked is
        // the proof the pushing thread ran and is waiting.
        let waiting = Guarded(false)
        let t = Thread { q.push(3, interrupted: { waiting.withLock { $0 = true }; return false }); pushed.withLock { $0 = true } }
        t.start()
        #expect(waitUntil(5) { waiting.withLock { $0 } }, "the third push never waited")
        #expect(!pushed.withLock { $0 }, "the third push waits")
        #expect(q.count == 2)
        #expect(q.pop(timeout: 1) == 1)
        #expect(waitUntil(2) { pushed.withLock { $0 } })
        #expect(q.count == 2)
    }

    /// The producer of frames waits for room before it makes a picture, so it never holds one
    /// more than the queue (unit tier).
    @Test func waitingForRoomReturnsOnceAPopMakesSome() {
        let q = BoundedQueue<Int>(maxCount: 2, maxCost: 10) { $0 }
        #expect(q.waitForRoom(), "an empty queue has room")
        q.push(6); q.push(6)  // full by cost
        #expect(!q.waitForRoom(interrupted: { true }), "an interrupted wait gives up")
        let done = Guarded<Bool?>(nil)
        let t = Thread { let room = q.waitForRoom(); done.withLock { $0 = room } }
        t.start()
        #expect(q.pop(timeout: 1) == 6)
        #expect(waitUntil(2) { done.withLock { $0 } == true })
        #expect(q.count == 1, "waiting pushed nothing")
        q.push(1)
        let closed = Guarded<Bool?>(nil)
        Thread { let room = q.waitForRoom(); closed.withLock { $0 = room } }.start()
        q.close()
        #expect(waitUntil(2) { closed.withLock { $0 } == false }, "a closed queue has no room")
    }

    @Test func costBoundsTheQueue() {
        let q = BoundedQueue<Int>(maxCount: 100, maxCost: 10) { $0 }
        #expect(q.push(6))
        #expect(q.push(6))  // cost 12 ≥ 10 from now on
        #expect(!q.push(1, interrupted: { true }), "full by cost: an interrupted push gives up")
        #expect(q.totalCost == 12)
        _ = q.pop(timeout: 0)
        #expect(q.totalCost == 6)
    }

    @Test func closeWakesABlockedPushAndPop() {
        let q = BoundedQueue<Int>(maxCount: 1)
        q.push(1)
        let results = Guarded<[String]>([])
        let pusher = Thread { let ok = q.push(2); results.withLock { $0.append("push \(ok)") } }
        let empty = BoundedQueue<Int>(maxCount: 1)
        let popper = Thread { let v = empty.pop(); results.withLock { $0.append("pop \(String(describing: v))") } }
        pusher.start(); popper.start()
        #expect(waitUntil(2) { q.waiters == 1 && empty.waiters == 1 }, "the push and the pop did not block")
        q.close(); empty.close()
        #expect(waitUntil(2) { results.withLock { $0 }.count == 2 })
        #expect(Set(results.withLock { $0 }) == ["push false", "pop nil"])
    }

    @Test func aBlockedPushGivesUpWhenInterrupted() {
        let q = BoundedQueue<Int>(maxCount: 1)
        q.push(1)
        let seekPending = Guarded(false)
        let result = Guarded<Bool?>(nil)
        let t = Thread {
            let ok = q.push(2, interrupted: { seekPending.withLock { $0 } })
            result.withLock { $0 = ok }
        }
        t.start()
        #expect(waitUntil(2) { q.waiters == 1 }, "the push did not block")
        #expect(result.withLock { $0 } == nil, "still waiting for room")
        seekPending.withLock { $0 = true }
        #expect(waitUntil(1) { result.withLock { $0 } != nil })
        #expect(result.withLock { $0 } == false)
        #expect(q.count == 1 && q.peek() == 1, "the interrupted item was not queued")
    }

    @Test func flushEmptiesAndLetsABlockedPushIn() {
        let q = BoundedQueue<Int>(maxCount: 1)
        q.push(1)
        let result = Guarded<Bool?>(nil)
        let t = Thread { let ok = q.push(2); result.withLock { $0 = ok } }
        t.start()
        #expect(waitUntil(2) { q.waiters == 1 }, "the push did not block")
        q.flush()
        #expect(waitUntil(1) { result.withLock { $0 } == true })
        #expect(q.count == 1 && q.peek() == 2, "the old item went with the flush")
    }

    @Test func endItemsTravelWithTheirSerial() {
        let q = BoundedQueue<QueueItem<Int>>(maxCount: 4)
        q.push(.item(1, serial: 1)); q.push(.end(serial: 1)); q.push(.item(7, serial: 2))
        let serials = (0..<3).compactMap { _ in q.pop(timeout: 0)?.serial }
        #expect(serials == [1, 1, 2])
    }

    @Test func waitForItemReturnsWhenSomethingArrives() {
        let q = BoundedQueue<Int>(maxCount: 4)
        #expect(!q.waitForItem(timeout: 0.01))
        let arrived = Guarded<Bool?>(nil)
        let t = Thread { let got = q.waitForItem(timeout: 10); arrived.withLock { $0 = got } }
        t.start()
        #expect(waitUntil(2) { q.waiters == 1 }, "the wait did not block")
        q.push(9)
        #expect(waitUntil(2) { arrived.withLock { $0 } == true })
        #expect(q.peek() == 9)
    }
}
