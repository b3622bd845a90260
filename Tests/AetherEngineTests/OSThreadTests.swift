import AetherBase
import Foundation
import Testing

/// ``OSThread/Joinable``: a thread its owner ends and waits for. Its exit handlers (a pthread
/// key's destructor, as OpenSSL's thread clean-up is) have run when ``OSThread/Joinable/join()``
/// returns, so a program that joins its threads before `exit` runs no library's thread clean-up
/// beside that library's `atexit` one. Unit tier: real threads; nothing sleeps or waits by time.
@Suite struct OSThreadTests {
    /// What happened, in order: the thread's body, its key's destructor (on the ending thread,
    /// after the body returned), and the join's return on the test's thread.
    static let events = Guarded<[String]>([])

    @Test func joinReturnsAfterTheThreadsExitHandlers() {
        var key = pthread_key_t()
        pthread_key_create(&key) { _ in OSThreadTests.events.withLock { $0.append("exit handler") } }
        defer { pthread_key_delete(key) }
        let thread = OSThread.startJoinable(name: "test.join") { [key] in
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
            OSThreadTests.events.withLock { $0.append("body") }
        }
        thread.join()
        Self.events.withLock { $0.append("joined") }
        // A join that returned before the thread ended would be read here without its exit
        // handler (or its body) before it.
        #expect(Self.events.current == ["body", "exit handler", "joined"])
        thread.join()   // a second join returns at once
    }
}
