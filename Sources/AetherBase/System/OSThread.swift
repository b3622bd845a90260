#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The program's threads: detached pthreads with a name (for logs, `top -H` and backtraces)
/// and, when asked, a stack size. Everything runs on these or on the main thread.
public enum OSThread {
    /// Linux keeps 15 bytes of a thread's name: longer names are cut there.
    public static let nameLimit = 15

    /// Starts `body` on a new thread named `name` with `stackSize` bytes of stack (nil: the
    /// system's default). A thread that cannot be made (out of memory or threads) stops the
    /// program: nothing here can go on without its thread.
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        _ = create(name: name, stackSize: stackSize, detached: true, body)
    }

    /// Starts `body` as ``start(name:stackSize:_:)`` does, on a thread its owner joins
    /// (``Joinable/join()``): a thread that ends as the program exits runs its C libraries'
    /// thread-exit handlers beside their `atexit` clean-up (OpenSSL's freed its tables under a
    /// thread ending its open, and glibc found its heap corrupt), so an owner ending its thread
    /// waits until it is gone, those handlers included.
    public static func startJoinable(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Joinable {
        Joinable(create(name: name, stackSize: stackSize, detached: false, body))
    }

    /// A thread that runs until its owner joins it; one that is never joined is detached when
    /// its handle goes.
    public final class Joinable: Sendable {
        /// Nil once joined.
        private let thread: Guarded<pthread_t?>

        init(_ thread: pthread_t) { self.thread = Guarded(thread) }

        /// Waits until the thread ended (its thread-exit handlers run). Once; later calls return at once.
        public func join() {
            guard let t = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) else { return }
            pthread_join(t, nil)
        }

        deinit { if let t = thread.current { pthread_detach(t) } }
    }

    private static func create(name: String, stackSize: Int?, detached: Bool, _ body: @escaping @Sendable () -> Void) -> pthread_t {
        let start = Start(name: String(decoding: name.utf8.prefix(nameLimit), as: UTF8.self), body: body)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        if let stackSize { pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN))) }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(start).toOpaque()
        let result = pthread_create(&thread, &attributes, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            OSThread.name(start.name)
            start.body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            fatalError("aether-tui: cannot start thread \(name): error \(result)")
        }
        return thread
    }

    /// Names the calling thread: /proc/thread-self/comm, what pthread_setname_np writes (which
    /// Swift's Glibc module leaves out).
    static func name(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = Array(name.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
