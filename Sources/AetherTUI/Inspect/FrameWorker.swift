import AetherBase
import AetherMedia
import AetherStructure
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Decodes the frames tab's frames on a thread of its own (a frame deep in a long GOP takes a
/// while; keys must still answer). One request at a time; a newer request replaces one that has
/// not started. The thread ends when the worker is released.
final class FrameWorker: Sendable {
    enum Request: Equatable, Sendable {
        case frame(stream: Int, pts: Int64)
        case next
        case previous
    }

    enum Outcome: Sendable {
        case frame(SteppedFrame)
        case failed(String)
    }

    private struct Work {
        var pending: Request?
        var busy = false
        var results: [Outcome] = []
        var stopped = false
    }
    private let work = GuardedCondition(Work())
    private let url: String
    private let network: NetworkSettings
    /// The stepper's open and reads are timed by it.
    private let clock: TimeSource
    private let maxSize: PixelSize
    private let onResult: @Sendable () -> Void

    init(url: String, network: NetworkSettings, maxSize: PixelSize, clock: TimeSource, onResult: @escaping @Sendable () -> Void) {
        self.clock = clock
        self.url = url
        self.network = network
        self.maxSize = maxSize
        self.onResult = onResult
        OSThread.start(name: "aether.inspect.frames") { [self] in run() }
    }

    func request(_ r: Request) {
        work.update { $0.pending = r }
    }

    /// A request is waiting or being decoded.
    var isBusy: Bool { work.withLock { $0.busy || $0.pending != nil } }

    func take() -> [Outcome] {
        work.withLock { w in
            defer { w.results.removeAll() }
            return w.results
        }
    }

    func stop() {
        work.update { $0.stopped = true }
    }

    private func run() {
        var stepper: FrameStepper?
        while true {
            let next = work.withLock(when: { $0.pending != nil || $0.stopped }) { w, _ -> Request? in
                if w.stopped { return nil }
                defer { w.pending = nil }
                w.busy = true
                return w.pending
            }
            guard let request = next else { return }
            let outcome: Outcome
            switch request {
            case .frame(let stream, let pts):
                if stepper?.streamIndex != stream {
                    stepper = nil
                    do { stepper = try FrameStepper(url: url, stream: stream, maxSize: maxSize, network: network, clock: clock) } catch {
                        finish(.failed("cannot decode stream \(stream): \(error)"))
                        continue
                    }
                }
                outcome = Self.outcome(stepper!.frame(at: pts))
            case .next:
                outcome = stepper.map { Self.outcome($0.next()) } ?? .failed("choose a packet first (packets tab, Enter)")
            case .previous:
                outcome = stepper.map { Self.outcome($0.previous()) } ?? .failed("choose a packet first (packets tab, Enter)")
            }
            finish(outcome)
        }
    }

    private func finish(_ outcome: Outcome) {
        work.withLock {
            $0.results.append(outcome)
            $0.busy = false
        }
        onResult()
    }

    private static func outcome(_ r: Result<SteppedFrame, InspectionError>) -> Outcome {
        switch r {
        case .success(let f): return .frame(f)
        case .failure(let e): return .failed(e.message)
        }
    }
}
