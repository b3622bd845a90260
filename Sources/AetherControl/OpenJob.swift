import AetherBase
import AetherMedia
import AetherPlayback
import AetherStreaming

/// One playlist item's open, on a thread of its own: a stalled server holds an open for up to
/// the network deadline, and the host's loop (its keys, its screen, remote commands) must not
/// wait for it. The controller starts it (``PlayerController/load(index:paused:reload:listChecked:)``)
/// and finishes the load on the host's thread once ``finished`` says it ended; the thread wakes
/// the host through the player's ``Player/changes``. Its ``token`` cancels it (a quit, a newer
/// move through the list). The player is thread-safe; nothing else is touched off the host's thread.
final class OpenJob {
    /// What it came to.
    enum Outcome: Sendable {
        case opened
        /// A web page of several videos: nothing loaded, its entries take its place.
        case pagePlaylist(PagePlaylist)
        case failed(PlayerError)
        case list(Result<[UInt8], PlaylistWalk.ListFailure>)
    }

    let index: Int
    let source: String
    /// It stays paused once it opened (a host may change its mind meanwhile).
    var paused: Bool
    /// Its options (``OpenPlan/options``: the network's settings too) and subtitles.
    let plan: OpenPlan
    /// What a reload of the item keeps (nil: an ordinary load).
    let reload: OpenPlan.Reload?
    let token: InterruptToken
    /// When it began, on the controller's clock.
    let began: Double
    /// Nil until the open ended.
    private let result = GuardedCondition<Outcome?>(nil)

    /// - Parameter fetchesList: the item names a station list, fetched on the thread
    ///   (``PlaylistWalk/fetchRemoteList(_:network:interrupt:)``); otherwise it opens in the player.
    init(index: Int, source: String, paused: Bool, plan: OpenPlan, fetchesList: Bool, reload: OpenPlan.Reload?,
         token: InterruptToken, player: Player, began: Double, on thread: OpenThread) {
        (self.index, self.source, self.paused, self.plan, self.reload, self.token, self.began)
            = (index, source, paused, plan, reload, token, began)
        let options = plan.options
        thread.run { [result] in
            let outcome: Outcome
            if fetchesList {
                outcome = .list(PlaylistWalk.fetchRemoteList(source, network: options.network, interrupt: token))
            } else {
                do throws(PlayerError) {
                    switch try player.load(url: source, options: options) {
                    case .playing: outcome = .opened
                    case .pagePlaylist(let list): outcome = .pagePlaylist(list)
                    }
                } catch {
                    outcome = .failed(error)
                }
            }
            result.update { $0 = outcome }
            player.changes.notify()
        }
    }

    /// What it came to, once it ended (nil: it goes on).
    var finished: Outcome? { result.withLock { $0 } }

    /// Waits for it to end.
    func wait() -> Outcome { result.withLock(when: { $0 != nil }) { o, _ in o! } }   // the predicate held: set

    /// Waits at most `seconds` for it to end.
    func wait(timeout seconds: Double) -> Outcome? { result.withLock(when: { $0 != nil }, timeout: seconds) { o, _ in o } }
}

/// The thread items open on: one for the controller's life, one open at a time (the controller
/// waits for a cancelled open before it starts the next). A thread of its own per open cost a
/// playlist of 100 000 missing files four times the CPU, in stacks made and torn down.
final class OpenThread: Sendable {
    private let queue = GuardedCondition<(work: [@Sendable () -> Void], stopped: Bool)>(([], false))
    private let thread: OSThread.Joinable

    init() {
        thread = OSThread.startJoinable(name: "aether.open") { [queue] in
            while let next = queue.withLock(when: { !$0.work.isEmpty || $0.stopped }, { s, _ in s.work.isEmpty ? nil : s.work.removeFirst() }) {
                next()
            }
        }
    }

    /// Runs `body` on the thread after what was given before.
    func run(_ body: @escaping @Sendable () -> Void) { queue.update { $0.work.append(body) } }

    /// The thread ends once what it was given has run, and is waited for: the controller goes
    /// as the program exits, and a thread ending beside `exit` ran OpenSSL's thread-exit handler
    /// while its `atexit` clean-up freed the tables that handler reads (a corrupt heap, 1 run in
    /// 150 of a short clip).
    func stop() {
        queue.update { $0.stopped = true }
        thread.join()
    }
}
