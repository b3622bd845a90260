import AetherBase
import Foundation
import Testing

/// ``OSThread/Joinable``: a thread its owner ends and waits for. Its exit handlers (a pthread
/// key's destructor, as OpenSSL's thread clean-up is) have run when ``OSThread/Joinable/join()``
/// returns, so a program that joins its threads before `exit` runs no library's thread clean-up
/// beside that library's `atexit` one. Unit tier: real threads; nothing waits by sleeping (the
/// destructor's 20 ms only make a join that did not wait for it see the flag unset).
@Suite struct OSThreadTests {
    /// Set by the key's destructor, on the ending thread, after its body returned.
    static let destructorRan = Guarded(false)

    @Test func joinReturnsAfterTheThreadsExitHandlers() {
        var key = pthread_key_t()
        pthread_key_create(&key) { _ in
            // Slow on purpose: a join that did not wait for the handler sees it unset.
            usleep(20_000)
            OSThreadTests.destructorRan.withLock { $0 = true }
        }
        defer { pthread_key_delete(key) }
        let ranBody = Guarded(false)
        let thread = OSThread.startJoinable(name: "test.join") { [key] in
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
            ranBody.withLock { $0 = true }
        }
        thread.join()
        #expect(ranBody.current)
        #expect(Self.destructorRan.current, "join returned before the thread's exit handler ran")
        thread.join()   // a second join returns at once
    }
}
