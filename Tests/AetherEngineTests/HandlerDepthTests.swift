import AetherBase
import Foundation
@testable import AetherPlayback
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Tier: unit. A handler kept behind a lock and called many times is called at the same depth
/// each time. Read out through `Guarded.withLock`'s `inout`, a closure came back wrapped in one
/// more reabstraction thunk per read, stored so: each call went a frame or two deeper, and a
/// playlist of 100 000 failing items overflowed the stack in the crash report's item watch
/// (issue 62, item 0). The depth is the number of frames on the handler's stack (a local's
/// address would do, but AddressSanitizer moves locals to a heap of fake frames).
@Suite struct HandlerDepthTests {
    /// How many more frames the handler may have under it at the last call than at the first
    /// (the caller's loop is the same; the growth was two frames a call, 10 000 over 5000).
    static let slack = 2
    static let calls = 5000

    /// The frames on the caller's stack.
    @inline(never) static func here() -> Int { Thread.callStackReturnAddresses.count }

    /// Calls `call` `calls` times; the handler it reaches records its depth in `depths`.
    static func spread(_ depths: Guarded<[Int]>, calling call: () -> Void) -> Int {
        for _ in 0..<calls { call() }
        let seen = depths.current
        guard let first = seen.first, let last = seen.last else { return .max }
        return abs(first - last)
    }

    @Test func aClosureReadOutOfGuardedStaysAtItsDepth() {
        let depths = Guarded<[Int]>([])
        let handler = Guarded<(@Sendable () -> Void)?>(nil)
        handler.withLock { $0 = { depths.withLock { $0.append(HandlerDepthTests.here()) } } }
        let spread = Self.spread(depths) { handler.current?() }
        #expect(spread <= Self.slack, "the handler went \(spread) frames deeper over \(Self.calls) calls")
    }

    @Test func aChangeNotifierCallsItsHandlerAtTheSameDepth() {
        let depths = Guarded<[Int]>([])
        let notifier = ChangeNotifier()
        notifier.set { depths.withLock { $0.append(HandlerDepthTests.here()) } }
        let spread = Self.spread(depths) { notifier.notify() }
        #expect(spread <= Self.slack, "notify went \(spread) frames deeper over \(Self.calls) calls")
    }

    @Test func theThreadStartHookIsReadAtTheSameDepth() {
        let depths = Guarded<[Int]>([])
        let before = EngineThreads.startHook
        defer { EngineThreads.setStartHook(before) }
        // The hook is the process's: threads other tests start call it too, and are not counted.
        let me = pthread_self()
        EngineThreads.setStartHook {
            if pthread_equal(pthread_self(), me) != 0 { depths.withLock { $0.append(HandlerDepthTests.here()) } }
        }
        let spread = Self.spread(depths) { EngineThreads.startHook?() }
        #expect(spread <= Self.slack, "the start hook went \(spread) frames deeper over \(Self.calls) calls")
    }
}
