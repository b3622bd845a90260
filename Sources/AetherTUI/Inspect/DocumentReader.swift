import AetherBase
import AetherMedia
import AetherStructure

/// The container tab's document, read on a thread of its own (#60): a URL's probe or a
/// manifest's fetch takes as long as the network lets it, and the loop must not wait for it.
/// The read ends by itself within the open's deadline, or when ``stop()`` cancels it; `stop`
/// waits for the thread, so nothing of the read outlives the inspector.
final class DocumentReader {
    private let result = GuardedCondition<Result<StructureDocument, InspectionError>?>(nil)
    private let interrupt: InterruptToken
    private var thread: OSThread.Joinable?

    /// Starts reading `path`'s structure (`network`: how a URL is fetched; its deadline on
    /// `clock`); `wake` tells the loop the document arrived.
    init(path: String, network: NetworkSettings, clock: TimeSource, wake: @escaping @Sendable () -> Void) {
        let interrupt = InterruptToken(clock: clock)
        self.interrupt = interrupt
        thread = OSThread.startJoinable(name: "aether.inspect") { [result] in
            let read: Result<StructureDocument, InspectionError>
            do throws(InspectionError) {
                read = .success(try StructureDocument.open(path: path, network: network, interrupt: interrupt))
            } catch { read = .failure(error) }
            result.update { $0 = read }
            wake()
        }
    }

    /// The document, or why it could not be read, once it is there (and only once).
    func take() -> Result<StructureDocument, InspectionError>? {
        result.update { read in
            defer { read = nil }
            return read
        }
    }

    /// Cancels the read and waits for its thread.
    func stop() {
        interrupt.cancel()
        thread?.join()
        thread = nil
    }

    deinit { stop() }
}
