import AetherBase
import Foundation
@testable import AetherControl
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The walk through the playlist and its tally, alone (unit tier): no player, items "open" as
/// a table says.
@Suite struct WalkTests {
    static func walk(_ count: Int, loops: LoopCount = .no) -> PlaylistWalk {
        PlaylistWalk(playlist: Playlist((0..<count).map { PlaylistItem(source: "/media/\($0).mkv") }), loops: loops,
                     interrupter: LoadInterrupter(clock: .monotonic))
    }

    /// Loads items as the controller does (the item becomes the position), but only those of
    /// `playable` open; keeps the items tried, in order, and what was said.
    final class Owner: PlaylistWalkOwner {
        let walk: PlaylistWalk
        var playable: Set<Int>
        /// Items that open on their thread: the walk waits for ``PlaylistWalk/openEnded(opened:)``.
        var slow: Set<Int> = []
        var tried: [Int] = []
        var said: [String] = []
        init(_ walk: PlaylistWalk, playable: Set<Int>, slow: Set<Int> = []) {
            self.walk = walk
            self.playable = playable
            self.slow = slow
            walk.owner = self
        }
        func load(index: Int, paused: Bool) -> LoadProgress {
            tried.append(index)
            walk.playlist.position = index
            if slow.contains(index) { return .opening }
            if playable.contains(index) { walk.tally.opened(loops: .no); return .opened }
            walk.tally.notPlayed("'\(index)': cannot open")
            return .failed
        }
        func show(_ text: String) { said.append(text) }
        func publish() {}
    }

    @Test func theTallyGivesTheExitStatus() {
        var tally = WalkTally()
        tally.opened(loops: .no)
        #expect(tally.status(items: 2) == .ok)
        tally.notPlayed("'b': cannot open")
        #expect(tally.status(items: 2) == .partial && tally.errors == ["'b': cannot open"])
        tally.failedPlaying("'a': read error", network: true)
        #expect(tally.status(items: 2) == .incomplete, "none of two played")
        // Each trouble kept as what it is, not only its line.
        #expect(tally.troubles == [.init(kind: .notPlayed, line: "'b': cannot open"),
                                   .init(kind: .failedPlaying, line: "'a': read error", network: true)])
        var early = WalkTally()
        early.opened(loops: .no)
        early.endedEarly("'a': truncated")
        #expect(early.status(items: 1) == .incomplete)
    }

    @Test func loopsAreCountedDownAndAPlaylistLoopsOnlyWhenSomethingPlayed() {
        var tally = WalkTally()
        tally.opened(loops: .times(2))
        let passes = [tally.takeFileLoop(), tally.takeFileLoop(), tally.takeFileLoop()]
        #expect(passes == [true, true, false])
        var nothing = WalkTally()
        nothing.playlistLoopsLeft = .infinite
        let broken = nothing.takePlaylistLoop()
        #expect(!broken, "a list of broken files is not walked for ever")
        nothing.opened(loops: .no)
        let again = nothing.takePlaylistLoop()
        #expect(again && nothing.playlistLoopsLeft == .infinite)
    }

    @Test func manyErrorsAreReportedAsAFewAndACount() {
        var tally = WalkTally()
        for i in 0..<25 { tally.notPlayed("'\(i)': missing") }
        let lines = tally.reportedErrors(limit: 20)
        #expect(lines.count == 21 && lines.last == "… and 5 more items that could not be played")
    }

    @Test func aSkipPassesOverItemsThatDoNotOpenInItsDirection() {
        let walk = Self.walk(5)
        let owner = Owner(walk, playable: [3])
        #expect(walk.skip(to: 1, forward: true, loop: false, paused: false) == .ok)
        #expect(owner.tried == [1, 2, 3] && owner.said == ["4/5 3.mkv"])
        owner.tried = []
        owner.playable = [4]
        #expect(walk.previous(loop: true, paused: false) == .ok)
        #expect(owner.tried == [2, 1, 0, 4], "back round the end of a looping list")
        owner.tried = []
        owner.playable = []
        #expect(walk.skip(to: 0, forward: true, loop: true, paused: false) == .failure("no playable item"))
        #expect(owner.tried == [0, 1, 2, 3, 4], "each item once")
        #expect(walk.play(5, loop: true, paused: false) == .failure("no playlist item 5"))
    }

    /// #60 item 2: an item that opens on its thread leaves the search waiting; how its open
    /// ended takes the search on (the next candidate in the move's direction) or ends it; a
    /// new move meanwhile replaces the search waiting.
    @Test func aSearchWaitsForAnOpenAndGoesOnFromHowItEnded() {
        let walk = Self.walk(5)
        let owner = Owner(walk, playable: [3], slow: [1])
        #expect(walk.skip(to: 1, forward: true, loop: false, paused: false) == .ok, "a move that opens is answered at once")
        #expect(owner.tried == [1] && walk.search?.candidate == 1 && owner.said.isEmpty)
        owner.slow = []
        #expect(walk.openEnded(opened: false) == .opened, "item 1 failed: on to 2 (fails), then 3")
        #expect(owner.tried == [1, 2, 3] && walk.search == nil && owner.said == ["4/5 3.mkv"])
        // A slow item that opens ends the search where it is.
        owner.tried = []
        owner.slow = [4]
        #expect(walk.advance() == .opening && walk.openEnded(opened: true) == .opened && owner.tried == [4])
        // Backwards, a newer move replaces the search waiting.
        owner.slow = [3, 2]
        owner.tried = []
        #expect(walk.previous(loop: false, paused: false) == .ok)
        #expect(walk.search?.candidate == 3 && walk.search?.purpose == .skip(forward: false, loop: false))
        #expect(walk.play(2, loop: false, paused: false) == .ok)
        #expect(walk.search?.candidate == 2 && walk.search?.purpose == .skip(forward: true, loop: false) && owner.tried == [3, 2])
        // None left: the start's search says so.
        let start = Self.walk(2)
        let starter = Owner(start, playable: [], slow: [0])
        #expect(start.start(from: 0, paused: false) == .opening)
        starter.slow = []
        #expect(start.openEnded(opened: false) == .none(.start) && starter.tried == [0, 1])
        // No search waits (an item reopened where it stood): how its open ended moves nothing.
        #expect(start.openEnded(opened: false) == nil && starter.tried == [0, 1])
    }

    @Test func atTheEndTheWalkGoesRoundWhilePassesAreLeft() {
        let walk = Self.walk(3, loops: .times(1))
        let owner = Owner(walk, playable: [1, 2])
        #expect(walk.start(from: 0, paused: false) == .opened)
        #expect(owner.tried == [0, 1] && walk.playlist.position == 1)
        #expect(walk.advance() == .opened && walk.playlist.position == 2)
        #expect(walk.following == 0, "the list loops once more")
        #expect(walk.advance() == .opened && walk.playlist.position == 1)
        #expect(owner.tried == [0, 1, 2, 0, 1] && walk.following == 2)
        walk.playlist.position = 2
        #expect(walk.following == nil && walk.advance() == .none(.advance))
        #expect(walk.next(loop: false, paused: false) == .failure("no next item"))
    }

    @Test func aQuitStopsTheWalk() {
        let interrupter = LoadInterrupter(clock: .monotonic)
        let walk = PlaylistWalk(playlist: Playlist([PlaylistItem(source: "a"), PlaylistItem(source: "b")]), loops: .no,
                                interrupter: interrupter)
        let owner = Owner(walk, playable: [0, 1])
        interrupter.raise()
        #expect(walk.start(from: 0, paused: false) == .none(.start) && owner.tried.isEmpty)
    }

    @Test func anEmptyPlaylistSaysSo() {
        let walk = Self.walk(0)
        let owner = Owner(walk, playable: [])
        #expect(walk.start(from: 0, paused: false) == .none(.start) && owner.tried.isEmpty)
        #expect(walk.tally.errors == ["nothing to play"])
    }

    @Test func theTallyKeepsTheFirstLinesAndCountsTheRest() {
        var tally = WalkTally()
        let n = WalkTally.keptLines + 2500
        for i in 0..<n { tally.notPlayed("'\(i)': cannot open") }
        #expect(tally.errors.count == WalkTally.keptLines && tally.linesLeftOut == 2500)
        #expect(tally.errors.last == "'\(WalkTally.keptLines - 1)': cannot open", "the first ones are kept")
        let reported = tally.reportedErrors(limit: 20)
        #expect(reported.count == 21 && reported.last == "… and \(n - 20) more items that could not be played", "\(reported.suffix(1))")
        #expect(tally.status(items: n) == .incomplete)
    }

    /// The crash report's watch of the item playing: each item that failed to open made its
    /// handler a reabstraction thunk deeper, until a playlist of 100 000 such items overflowed
    /// the stack (issue 62, item 0). The handler is called at the same depth every time.
    @Test func theCurrentItemWatchCallsItsHandlerAtTheSameDepth() {
        let depths = Guarded<[Int]>([])
        // Frames under the handler (a local's address would do, but AddressSanitizer moves locals);
        // the watch is the process's, and other tests' controllers running beside call it too.
        let me = pthread_self()
        CurrentItemWatch.watch { _, _ in
            if pthread_equal(pthread_self(), me) != 0 { depths.withLock { $0.append(Thread.callStackReturnAddresses.count) } }
        }
        defer { CurrentItemWatch.watch(nil) }
        let item = PlaylistItem(source: "/nowhere/missing.mkv")
        for _ in 0..<5000 { CurrentItemWatch.current(item, info: nil) }
        let seen = depths.current
        let spread = abs((seen.first ?? 0) - (seen.last ?? .max))
        #expect(seen.count == 5000 && spread <= 2, "\(seen.count) calls, the last \(spread) frames deeper than the first")
    }

    @Test func theItemFactsHoldAnImageItsDuration() {
        var facts = ItemFacts()
        facts.opened(fileSize: 10, startPosition: 5)
        let first = facts.holdsImage(now: 100, for: .seconds(2))
        #expect(first && facts.imageDue(now: 101.5, for: .seconds(2)) == 0.5)
        let later = facts.holdsImage(now: 102, for: .seconds(2))
        #expect(!later, "from when it was first seen ended")
        let forever = facts.holdsImage(now: 1e9, for: .forever)
        #expect(forever && facts.imageDue(now: 0, for: .forever) == nil)
        facts.heldAtEnd = true
        facts.willLoad()
        #expect(!facts.heldAtEnd && facts.imageDue(now: 0, for: .seconds(1)) == nil)
        #expect(facts.fileSize == 10 && facts.startPosition == 5, "kept until the next item opens")
    }
}
