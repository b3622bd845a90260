import AetherEngine
@testable import AetherPlayback
import Testing

/// The seek generation's transitions and the one place the player state changes, as values.
struct SeekGenerationTests {
    @Test func aSeekGoesFromRequestThroughBeginToItsLanding() throws {
        var g = SeekGeneration()
        g.request(to: 5, mode: .keyframe)
        g.request(to: 7, mode: .exact)   // the newest wins
        let taken = g.take()
        let seek = try #require(taken)
        #expect(seek.target == 7 && seek.mode == .exact)
        #expect(g.pending == nil && g.inFlight == 7)
        let serial = g.begin()
        #expect(serial == 1)
        let started = g.started(serial: serial, at: 7, mode: .exact, landsAtTarget: false)
        #expect(started)
        #expect(g.inFlight == nil && g.start == 7 && g.skipVideoUntil == 7 && g.landed == nil)
        let landed = g.land(at: 6.5, serial: serial)
        let landedAgain = g.land(at: 6.9, serial: serial)
        #expect(landed)
        #expect(!landedAgain, "the first landing stands")
        #expect(g.landed == 6.5)
        let first = g.sawFirstFrame(serial: serial)
        let firstAgain = g.sawFirstFrame(serial: serial)
        #expect(first && !firstAgain)
        g.end(.video, serial: serial)
        g.end(.audio, serial: serial - 1)   // an older serial's end is not this one's
        #expect(g.videoEnded && !g.audioEnded)
        g.end(.audio, serial: nil)          // a stream left out ends whatever the serial
        #expect(g.audioEnded)
    }

    @Test func aSupersededSeekStartsNothing() {
        var g = SeekGeneration()
        g.request(to: 1, mode: .exact)
        _ = g.take()
        let first = g.begin()
        g.request(to: 2, mode: .exact)      // asked while the first is carried out
        let startedFirst = g.started(serial: first, at: 1, mode: .exact, landsAtTarget: true)
        #expect(startedFirst)
        #expect(g.inFlight == 1, "a newer seek pending: the old target stays the position shown")
        _ = g.take()
        let second = g.begin()
        let startedStale = g.started(serial: first, at: 1, mode: .exact, landsAtTarget: true)
        let startedSecond = g.started(serial: second, at: 2, mode: .exact, landsAtTarget: true)
        #expect(!startedStale)
        #expect(startedSecond)
        #expect(g.landed == 2 && g.inFlight == nil)
        let landedStale = g.land(at: 3, serial: first)
        #expect(!landedStale)
    }

    @Test func anExactSeekPastItsTargetRetriesFromFurtherBackThreeTimes() {
        var g = SeekGeneration()
        g.request(to: 20, mode: .exact)
        _ = g.take()
        var serial = g.begin()
        _ = g.started(serial: serial, at: 20, mode: .exact, landsAtTarget: true)
        var prerolls: [Double] = []
        while g.retry(serial: serial) {
            prerolls.append(g.preroll)
            #expect(g.pending?.target == 20 && g.pending?.mode == .exact)
            _ = g.take()
            serial = g.begin()
            _ = g.started(serial: serial, at: 20, mode: .exact, landsAtTarget: true)
        }
        #expect(prerolls == SeekGeneration.prerolls)
        g.request(to: 10, mode: .exact)
        #expect(g.preroll == 0 && g.retries == 0, "a new seek starts without preroll")
        let retried = g.retry(serial: serial)
        #expect(!retried, "not while a seek is pending")
    }

    @Test func onlyApplyChangesTheState() {
        var c = SessionControl()
        #expect(c.state == .loading)
        c.apply(.pauseChanged)
        #expect(c.state == .loading, "pause does not settle a load")
        c.apply(.landed)
        #expect(c.state == .paused)
        c.userPaused = false
        c.apply(.pauseChanged)
        #expect(c.state == .playing)
        c.apply(.seekRequested)
        #expect(c.state == .seeking)
        c.apply(.landed)
        #expect(c.state == .playing)
        c.paused = false
        c.apply(.ended(at: 12))
        #expect(c.state == .ended && c.paused && c.ending.host == 12, "the end is stamped with the time the reducer was given")
        c.apply(.failed(PlayerError("nothing left", cause: .nothingToPlay)))
        #expect(c.state == .error && c.ending.failure?.message == "nothing left")
        c.apply(.seekRequested)
        c.apply(.failed(PlayerError("again")))
        #expect(c.state == .error && c.ending.failure?.message == "nothing left", "an error is final")
    }
}
