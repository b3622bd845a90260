import AetherBase
@testable import AetherPlayback
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Tier: unit. A handler kept behind a lock and called many times is called at the same depth
/// each time. Read out through `Guarded.withLock`'s `inout`, a closure came back wrapped in one
/// more reabstraction thunk per read, stored so: each call went a frame or two deeper, and a
/// playlist of 100 000 failing items overflowed the stack in the crash report's item watch
/// (issue 62, item 0). The depth is the address of a local in the handler.
@Suite struct HandlerDepthTests {
    /// How far apart the handler's stack frames may be between the first call and the last
    /// (the caller's loop is the same; the growth was 32 bytes a call, 160 KB over 5000).
    static let slack = 512
    static let calls = 5000

    /// The stack address of a local of the caller.
    @inline(never) static func here() -> Int {
        var local = 0
        return withUnsafeMutablePointer(to: &local) { Int(bitPattern: $0) }
    }

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
        #expect(spread <= Self.slack, "the handler went \(spread) bytes deeper over \(Self.calls) calls")
    }

    @Test func aChangeNotifierCallsItsHandlerAtTheSameDepth() {
        let depths = Guarded<[Int]>([])
        let notifier = ChangeNotifier()
        notifier.set { depths.withLock { $0.append(HandlerDepthTests.here()) } }
        let spread = Self.spread(depths) { notifier.notify() }
        #expect(spread <= Self.slack, "notify went \(spread) bytes deeper over \(Self.calls) calls")
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
        #expect(spread <= Self.slack, "the start hook went \(spread) bytes deeper over \(Self.calls) calls")
    }
}
