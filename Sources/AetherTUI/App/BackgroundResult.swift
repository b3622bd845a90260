import Foundation

extension TUIApp {
    /// A value computed on a thread of its own (named, for logs and backtraces), waited for
    /// when needed: the capability probe, the terminfo entry.
    final class BackgroundResult<Value>: @unchecked Sendable {  // `value` is written before `done` is signalled
        private var value: Value?
        private let done = DispatchSemaphore(value: 0)

        init(name: String, _ body: @escaping @Sendable () -> Value) {
            let t = Thread { [self] in
                value = body()
                done.signal()
            }
            t.name = name
            t.start()
        }

        /// Waits for the value (the probe: at most its budget plus a little).
        func wait() -> Value {
            done.wait()
            done.signal()   // a second wait returns at once
            return value!   // set before `done` is signalled
        }
    }
}
