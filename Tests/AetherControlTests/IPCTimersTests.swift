import AetherBase
@testable import AetherControl
import Testing

/// The IPC loop's time-driven decisions on a manual clock, to the millisecond (unit tier): the
/// accept pause after the descriptors ran out, the final flush's bound, and `get_time_us`.
@Suite struct IPCTimersTests {
    @Test func acceptingPausesForAHundredMillisecondsAfterDescriptorsRunOut() {
        let time = ManualTimeSource(milliseconds: 7_000)
        var timers = IPCTimers()
        var accepts = timers.accepts(now: time.seconds)
        #expect(accepts && timers.pollTimeout(now: time.seconds) == -1, "no pause: poll waits for an event")
        timers.pauseAccepting(now: time.seconds)
        accepts = timers.accepts(now: time.seconds)
        #expect(!accepts)
        #expect(timers.pollTimeout(now: time.seconds) == 100)
        time.advance(milliseconds: 99)
        accepts = timers.accepts(now: time.seconds)
        #expect(!accepts)
        #expect(timers.pollTimeout(now: time.seconds) == 1, "the last millisecond is waited for, never 0 (a spin)")
        time.advance(milliseconds: 1)
        accepts = timers.accepts(now: time.seconds)
        #expect(accepts, "listening again at 100 ms")
        #expect(timers.pollTimeout(now: time.seconds) == -1)
    }

    @Test func theFinalFlushWaitsAQuarterOfASecondAtMost() {
        let time = ManualTimeSource()
        let start = time.seconds
        #expect(IPCTimers.flushTimeout(start: start, now: time.seconds) == 250)
        time.advance(milliseconds: 200)
        #expect(IPCTimers.flushTimeout(start: start, now: time.seconds) == 50)
        time.advance(milliseconds: 50)
        #expect(IPCTimers.flushTimeout(start: start, now: time.seconds) == nil, "at 250 ms the clients have had their moment")
    }

    @Test func getTimeUsAnswersTheInjectedClock() {
        let time = ManualTimeSource(milliseconds: 1_234)
        var session = IPCSession(name: "ipc-1", time: time.source)
        let before = session.handle(line: Array(#"{"command":["get_time_us"],"request_id":1}"#.utf8), snapshot: { PlayerSnapshot() })
        time.advance(milliseconds: 5)
        let after = session.handle(line: Array(#"{"command":["get_time_us"],"request_id":2}"#.utf8), snapshot: { PlayerSnapshot() })
        #expect(before == [.send(#"{"data":1234000,"request_id":1,"error":"success"}"#)])
        #expect(after == [.send(#"{"data":1239000,"request_id":2,"error":"success"}"#)])
    }
}
