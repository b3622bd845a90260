import AetherControl
import Testing

/// mpv's A-B loop as a rule (unit tier): playing through B goes back to A, a seek past B does
/// not, the count runs down, an unset A is the start and an unset B the end, and `l` sets A,
/// then B, then clears them.
@Suite struct ABLoopTests {
    @Test func playingThroughBGoesBackToA() {
        var loop = ABLoop(a: 5, b: 10)
        #expect(loop.target(from: 9.97, to: 10.0) == 5)
        #expect(loop.target(from: 9.9, to: 10.1) == 5 && loop.isOn, "inf loops by default")
        #expect(loop.target(from: 5.0, to: 5.03) == nil && loop.target(from: 10.0, to: 10.03) == nil, "only the crossing")
        // A seek past B (more than a second at once) plays on.
        #expect(loop.target(from: 3, to: 20) == nil && loop.target(from: 9.5, to: 11) == nil)
    }

    @Test func theCountRunsDown() {
        var loop = ABLoop(a: 1, b: 2, count: .times(2))
        #expect(loop.target(from: 1.99, to: 2.01) == 1 && loop.count == .times(1))
        #expect(loop.target(from: 1.99, to: 2.01) == 1 && loop.count == .no && !loop.isOn)
        #expect(loop.target(from: 1.99, to: 2.01) == nil, "the points are ignored once the loops are run")
        var none = ABLoop(a: 1, b: 2, count: .no)
        #expect(none.target(from: 1.99, to: 2.01) == nil)
    }

    @Test func anUnsetPointIsTheStartOrTheEnd() {
        var onlyB = ABLoop(b: 4)
        #expect(onlyB.target(from: 3.98, to: 4.0) == 0 && onlyB.targetAtEnd() == nil)
        var onlyA = ABLoop(a: 7)
        #expect(onlyA.target(from: 100, to: 100.02) == nil && onlyA.targetAtEnd() == 7)
        var off = ABLoop()
        #expect(!off.isOn && off.target(from: 1, to: 1.02) == nil && off.targetAtEnd() == nil)
    }

    @Test func theKeySetsAThenBThenClears() {
        var loop = ABLoop()
        #expect(loop.press(at: 61.5) == "A-B loop start: 01:01" && loop.a == 61.5 && loop.b == nil)
        #expect(loop.press(at: 75) == "A-B loop: 01:01 - 01:15" && loop.b == 75)
        #expect(loop.press(at: 80) == "Clear A-B loop" && loop.a == nil && loop.b == nil)
    }
}
