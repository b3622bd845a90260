import AetherEngine
import Foundation

/// Decodes the frames tab's frames on a thread of its own (a frame deep in a long GOP takes a
/// while; keys must still answer). One request at a time; a newer request replaces one that has
/// not started. The thread ends when the worker is released.
final class FrameWorker: @unchecked Sendable {  // state guarded by `condition`
    enum Request: Equatable, Sendable {
        case frame(stream: Int, pts: Int64)
        case next
        case previous
    }

    enum Outcome: Sendable {
        case frame(SteppedFrame)
        case failed(String)
    }

    private let condition = NSCondition()
    private var pending: Request?
    private var busy = false
    private var results: [Outcome] = []
    private var stopped = false
    private let url: String
    private let maxSize: PixelSize
    private let onResult: @Sendable () -> Void

    init(url: String, maxSize: PixelSize, onResult: @escaping @Sendable () -> Void) {
        self.url = url
        self.maxSize = maxSize
        self.onResult = onResult
        let t = Thread { [self] in run() }
        t.name = "aether.inspect.frames"
        t.start()
    }

    func request(_ r: Request) {
        condition.withLock {
            pending = r
            condition.signal()
        }
    }

    /// A request is waiting or being decoded.
    var isBusy: Bool { condition.withLock { busy || pending != nil } }

    func take() -> [Outcome] {
        condition.withLock {
            defer { results.removeAll() }
            return results
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run() {
        var stepper: FrameStepper?
        while true {
            condition.lock()
            while pending == nil, !stopped { condition.wait() }
            if stopped { condition.unlock(); return }
            let request = pending!
            pending = nil
            busy = true
            condition.unlock()
            let outcome: Outcome
            switch request {
            case .frame(let stream, let pts):
                if stepper?.streamIndex != stream {
                    stepper = nil
                    do { stepper = try FrameStepper(url: url, stream: stream, maxSize: maxSize) } catch {
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
        condition.withLock {
            results.append(outcome)
            busy = false
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
