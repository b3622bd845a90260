import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Which request is current. Each request takes the next number; work for an older number stops
/// at its next check (between packets and frames) and answers nil.
final class RequestGate: Sendable {
    private let latest = Atomic<UInt64>(0)

    /// A new current request; every earlier one is superseded from now on.
    func next() -> UInt64 { latest.wrappingAdd(1, ordering: .relaxed).newValue }
    func isCurrent(_ request: UInt64) -> Bool { latest.load(ordering: .relaxed) == request }
}

/// What the extractor's thread publishes about its source, read by the actor at any time.
final class ExtractionStatus: Sendable {
    let isOpen = Atomic<Bool>(false)
    let opens = Atomic<Int>(0)
    /// The source's length and frame interval, once it has been opened (kept across closes).
    let timing = Guarded<SourceTiming?>(nil)
}

/// How long a source is and how long each of its frames shows.
struct SourceTiming: Sendable {
    var duration: Double?
    var frameInterval: Double
    /// The last position with a picture: one frame before the end.
    var lastPosition: Double? { duration.map { max(0, $0 - frameInterval) } }
}

/// What lives on an ``ExtractionThread`` and nowhere else; closed (its FFmpeg resources freed)
/// when the thread ends.
protocol ThreadConfinedContext: AnyObject, SendableMetatype {
    func close()
}

/// The state that lives on the extractor's thread and nowhere else: how to open the source, and
/// the open ``StillDecoder`` when there is one.
final class ExtractionContext: ThreadConfinedContext {
    let url: String
    let options: Result<[String: String], FrameExtractorError>
    let network: NetworkSettings
    let threads: Int
    let readTimeout: Double
    let status: ExtractionStatus
    /// The source's open and reads poll it (their deadlines on its clock); the extractor's
    /// shutdown cancels it.
    let interrupt: InterruptToken
    private var decoder: StillDecoder?

    init(url: String, options: Result<[String: String], FrameExtractorError>, network: NetworkSettings,
         threads: Int, readTimeout: Double, status: ExtractionStatus, interrupt: InterruptToken) {
        self.url = url
        self.interrupt = interrupt
        self.options = options
        self.network = network
        self.threads = threads
        self.readTimeout = readTimeout
        self.status = status
    }

    /// The open decoder, opening the source first when it is closed.
    func open() throws -> StillDecoder {
        if let decoder { return decoder }
        let opened = try StillDecoder(url: url, options: try options.get(), network: network, threads: threads, readTimeout: readTimeout,
                                      interrupt: interrupt)
        decoder = opened
        status.opens.wrappingAdd(1, ordering: .relaxed)
        status.isOpen.store(true, ordering: .relaxed)
        status.timing.withLock { $0 = opened.timing }
        return opened
    }

    /// Frees the demuxer, decoders and scaler (they go with the decoder object).
    func close() {
        decoder = nil
        status.isOpen.store(false, ordering: .relaxed)
    }
}

/// The one thread that runs an extractor's blocking FFmpeg work, in submission order, off
/// Swift's cooperative pool. Jobs wait in a queue behind a ``GuardedCondition``; the thread
/// sleeps on it when there is nothing to do.
final class ExtractionThread<Context: ThreadConfinedContext>: Sendable {
    typealias Job = @Sendable (Context) -> Void
    private struct Queue {
        var jobs: [Job] = []
        var stopping = false
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let queue = GuardedCondition(Queue())

    /// Starts the thread; `makeContext` runs on it, so the context never leaves it.
    init(name: String, makeContext: @escaping @Sendable () -> Context) {
        OSThread.start(name: name, stackSize: 4 << 20) { [self] in run(makeContext) }
    }

    /// Queues `job`; false once the thread is stopping (the job will never run).
    func submit(_ job: @escaping Job) -> Bool {
        queue.update { q in
            guard !q.stopping else { return false }
            q.jobs.append(job)
            return true
        }
    }

    /// Lets the thread finish the queued jobs, free the source and end, without waiting.
    func stop() { queue.update { $0.stopping = true } }

    /// ``stop()``, then waits until the thread has freed every FFmpeg resource and ended.
    func stopAndWait() async {
        stop()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let already = queue.withLock { q -> Bool in
                if !q.finished { q.finishWaiters.append(done) }
                return q.finished
            }
            if already { done.resume() }
        }
    }

    private func run(_ makeContext: () -> Context) {
        // Previews and screenshots yield the CPU to playback: nice 10 for this thread only
        // (Linux applies setpriority to a thread id), so a scrub never costs a painted frame.
        _ = aether_nice_this_thread(10)
        EngineThreads.startHook?()
        do {
            let context = makeContext()
            while let job = nextJob() { job(context) }
            context.close()
        }
        let waiters = queue.withLock { q -> [CheckedContinuation<Void, Never>] in
            q.finished = true
            defer { q.finishWaiters.removeAll() }
            return q.finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The next job, waiting for one; nil when stopping and the queue is empty.
    private func nextJob() -> Job? {
        queue.withLock(when: { !$0.jobs.isEmpty || $0.stopping }) { q, _ in
            q.jobs.isEmpty ? nil : q.jobs.removeFirst()
        }
    }
}
