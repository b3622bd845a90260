@testable import AetherTUI
import Testing

/// Pictures through tmux's passthrough checked with a DA1 (unit tier: a manual clock in ms).
@Suite struct TmuxDeliveryCheckTests {
    static func ms(_ v: Double) -> Double { v / 1000 }

    @Test func theFirstPictureAtOnceThenAStillOneAndAnAnswerClearsIt() {
        var c = TmuxDeliveryCheck()
        do { let action = c.next(now: 0); #expect(action == .none, "nothing painted: nothing to check") }
        #expect(c.nextDue() == nil)
        c.painted(count: 1, now: Self.ms(100))
        do { let action = c.next(now: Self.ms(100)); #expect(action == .ask, "the first picture is checked at once") }
        do { let action = c.next(now: Self.ms(120)); #expect(action == .none, "one check at a time") }
        c.answer(now: Self.ms(130))
        #expect(c.answered == 1 && c.lost == 0)
        c.painted(count: 2, now: Self.ms(500))
        do { let action = c.next(now: Self.ms(600)); #expect(action == .none, "not yet still, and the last check was 0.5 s ago") }
        #expect(c.nextDue() == Self.ms(800))
        do { let action = c.next(now: Self.ms(800)); #expect(action == .ask, "still for 0.3 s") }
        c.answer(now: Self.ms(830))
        do { let action = c.next(now: Self.ms(5000)); #expect(action == .none, "that picture is checked") }
        #expect(c.nextDue() == nil)
    }

    /// What lets the start's blind repaints go: an answer to a check sent after the latest picture.
    @Test func theLatestPictureIsConfirmedOnlyByACheckSentAfterIt() {
        var c = TmuxDeliveryCheck()
        #expect(!c.latestConfirmed, "nothing painted")
        c.painted(count: 1, now: 0)
        do { let action = c.next(now: Self.ms(300)); #expect(action == .ask) }
        #expect(!c.latestConfirmed, "asked, not answered")
        c.painted(count: 2, now: Self.ms(310))   // a repaint while the check is out
        c.answer(now: Self.ms(320))
        #expect(!c.latestConfirmed, "the answer covers the first picture, not the repaint")
        do { let first = c.firstConfirmation(); #expect(!first) }
        do { let action = c.next(now: Self.ms(610)); #expect(action == .ask) }
        c.answer(now: Self.ms(630))
        #expect(c.latestConfirmed)
        do { let first = c.firstConfirmation(), again = c.firstConfirmation(); #expect(first && !again, "said once") }
        c.painted(count: 3, now: Self.ms(700))
        #expect(!c.latestConfirmed, "a new picture is not confirmed yet")
        // A check that timed out and was answered late covers only what it asked about.
        do { let action = c.next(now: Self.ms(1000)); #expect(action == .ask) }
        c.painted(count: 4, now: Self.ms(1100))
        do { let action = c.next(now: Self.ms(2000)); #expect(action == .resend) }
        c.answer(now: Self.ms(2100))
        #expect(!c.latestConfirmed, "the late answer covers picture 3, not 4")
    }

    @Test func whilePlayingAtMostOneCheckASecond() {
        var c = TmuxDeliveryCheck()
        var asks = 0
        // 24 pictures a second for 3 s, each check answered 40 ms later.
        var answerAt: Double?
        for tick in 0..<(3000 / 10) {
            let now = Self.ms(Double(tick * 10))
            c.painted(count: tick * 10 / 42 + 1, now: now)
            if let at = answerAt, now >= at { c.answer(now: now); answerAt = nil }
            if c.next(now: now) == .ask { asks += 1; answerAt = now + Self.ms(40) }
        }
        #expect(asks == 3, "\(asks) checks in 3 s")
        #expect(c.lost == 0)
    }

    @Test func anUnansweredCheckCountsALostPictureAndSendsItAgain() {
        var c = TmuxDeliveryCheck()
        c.painted(count: 1, now: 0)
        do { let action = c.next(now: Self.ms(300)); #expect(action == .ask) }
        #expect(c.timeout == 1)
        do { let action = c.next(now: Self.ms(1299)); #expect(action == .none) }
        do { let action = c.next(now: Self.ms(1300)); #expect(action == .resend) }
        #expect(c.lost == 1)
        // The picture sent again is not checked until a late answer or the settling time.
        c.painted(count: 2, now: Self.ms(1350))
        do { let action = c.next(now: Self.ms(2000)); #expect(action == .none) }
        #expect(c.nextDue() == Self.ms(300) + TmuxDeliveryCheck.settleSeconds)
        do { let action = c.next(now: Self.ms(10_300)); #expect(action == .ask, "settled: checks resume") }
        c.answer(now: Self.ms(10_350))
        #expect(c.lost == 1 && c.answered == 1)
    }

    @Test func aLateAnswerWasSlowNotLostAndTheTimeoutGrows() {
        var c = TmuxDeliveryCheck()
        c.painted(count: 1, now: 0)
        do { let action = c.next(now: Self.ms(300)); #expect(action == .ask) }
        do { let action = c.next(now: Self.ms(1300)); #expect(action == .resend) }
        #expect(c.lost == 1)
        c.answer(now: Self.ms(1800))   // 1.5 s after its check
        #expect(c.lost == 0 && c.answered == 1)
        #expect(c.timeout == 6, "four times the slowest answer")
        c.painted(count: 2, now: Self.ms(1900))
        do { let action = c.next(now: Self.ms(2200)); #expect(action == .ask) }
        do { let action = c.next(now: Self.ms(7000)); #expect(action == .none, "within the grown timeout") }
        c.answer(now: Self.ms(7100))
        #expect(c.lost == 0 && c.answered == 2)
    }

    @Test func lossesCountOnceTheTerminalOutsideIsKnownToAnswer() {
        // The probe's passthrough was dropped during attach: nothing known yet.
        var c = TmuxDeliveryCheck(answersKnown: false)
        c.painted(count: 1, now: 0)
        do { let action = c.next(now: 0); #expect(action == .ask) }
        do { let action = c.next(now: 1); #expect(action == .resend, "sent again all the same") }
        #expect(c.lost == 0, "not counted: maybe nobody answers at all (a detached session)")
        c.painted(count: 2, now: Self.ms(1050))
        do { let action = c.next(now: 11); #expect(action == .ask, "settled") }
        c.answer(now: Self.ms(11_040))
        #expect(c.answersKnown && c.answered == 1 && c.lost == 0)
        c.painted(count: 3, now: 12)
        do { let action = c.next(now: 12); #expect(action == .ask) }
        do { let action = c.next(now: 13); #expect(action == .resend) }
        #expect(c.lost == 1, "known to answer now: counted")
    }

    @Test func anOutputCountingAgainIsCheckedToo() {
        var c = TmuxDeliveryCheck()
        c.painted(count: 40, now: 0)
        do { let action = c.next(now: 0); #expect(action == .ask) }
        c.answer(now: Self.ms(20))
        // Another output (a driver switch) counts its pictures from one again.
        c.painted(count: 1, now: 2)
        do { let action = c.next(now: 2); #expect(action == .ask) }
    }

    @Test func anAnswerNobodyWaitsForChangesNothing() {
        var c = TmuxDeliveryCheck()
        c.answer(now: 1)   // the start's own DA1s, answered late
        #expect(c.lost == 0 && c.answered == 0)
        #expect(c == TmuxDeliveryCheck())
    }
}
