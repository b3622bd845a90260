import AetherScreen
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// Whether pixel pictures sent through tmux's passthrough reach the terminal outside.
///
/// tmux drops passthrough while a redraw of its client is pending (at attach, and longer on a
/// busy machine) and for a client that lags too far behind; a picture lost so is not redrawn
/// (tmux keeps only its own cells). A check is a DA1 sent through the passthrough after a
/// picture: tmux 3.3a hands the outer terminal's answer to the pane (seen in xterm: the
/// passthrough DA1 came back as xterm's `?63;…c`, a bare one as tmux's `?1;2c`), and the
/// terminal answers after it has taken the picture before it. No answer within
/// ``timeout`` means tmux dropped the check, and with it the picture before it: that picture
/// is counted lost and sent again.
///
/// One check is out at a time, so the answers (all alike) need no matching: while playing at
/// most one a second, and one soon after the picture goes still (the picture a user looks at
/// longest). An answer that comes after its check timed out means it was slow, not lost: the
/// count is taken back and the timeout grows (four times the slowest answer, at least 1 s).
/// Until that late answer or ``settleSeconds`` no other check is sent. Losses are counted once
/// the terminal outside is known to answer (it answered the start's probe, or any check): tmux
/// drops the probe's passthrough too when it comes during attach, and a detached session has
/// no terminal at all; until then a timeout only sends the picture again. Pure: time comes in.
struct TmuxDeliveryCheck: Equatable {
    enum Action: Equatable {
        case none
        /// Send a DA1 through the passthrough now.
        case ask
        /// The check timed out: send the picture again.
        case resend
    }

    /// Pictures counted lost (checks unanswered).
    private(set) var lost = 0
    /// The terminal outside has answered a DA1 through the passthrough.
    private(set) var answersKnown: Bool
    /// The overdue check was counted lost.
    private var overdueCounted = false
    /// Checks answered.
    private(set) var answered = 0
    private var askedAt: Double?
    /// The paint count the outstanding (or overdue) check covers.
    private var askedPaints = 0
    /// The paint count the last answered check covered.
    private var confirmedPaints = 0
    private var confirmationTaken = false
    /// A check that timed out: a late answer still clears it, until `settleSeconds` after.
    private var overdueSince: Double?
    private var paints = 0
    private var lastPaintAt = -Double.infinity
    private var checkedPaints = 0
    private var lastAskedAt = -Double.infinity
    private var slowestAnswer = 0.0

    /// At most one check this often while pictures keep coming.
    static let interval = 1.0
    /// A picture that has stood this long is checked.
    static let stillAfter = 0.3
    /// After a timeout, how long a late answer is waited for before checks resume.
    static let settleSeconds = 10.0

    var timeout: Double { max(1, 4 * slowestAnswer) }

    init(answersKnown: Bool = true) { self.answersKnown = answersKnown }

    /// The output has painted `count` pictures in all (through the passthrough) by `now`; a
    /// lower count than before is an output counting from the start again.
    mutating func painted(count: Int, now: Double) {
        guard count != paints else { return }
        if count < paints { checkedPaints = 0 }
        paints = count
        lastPaintAt = now
    }

    /// What to do at `now`.
    mutating func next(now: Double) -> Action {
        if let asked = askedAt {
            guard now - asked >= timeout else { return .none }
            askedAt = nil
            overdueSince = asked
            overdueCounted = answersKnown
            if answersKnown { lost += 1 }
            return .resend
        }
        if let since = overdueSince {
            guard now - since >= Self.settleSeconds else { return .none }
            overdueSince = nil
        }
        guard paints > checkedPaints,
              now - lastPaintAt >= Self.stillAfter || now - lastAskedAt >= Self.interval else { return .none }
        askedAt = now
        lastAskedAt = now
        checkedPaints = paints
        askedPaints = paints
        return .ask
    }

    /// The outer terminal answered a DA1 at `now`.
    mutating func answer(now: Double) {
        let asked: Double
        if let outstanding = askedAt {
            asked = outstanding
            askedAt = nil
        } else if let since = overdueSince {
            // The check that timed out was slow, not lost.
            asked = since
            overdueSince = nil
            if overdueCounted { lost -= 1 }
        } else {
            return
        }
        slowestAnswer = max(slowestAnswer, now - asked)
        confirmedPaints = max(confirmedPaints, askedPaints)
        answered += 1
        answersKnown = true
    }

    /// The terminal outside is known to have the latest picture: a check sent after it was answered.
    var latestConfirmed: Bool { paints > 0 && confirmedPaints == paints }

    /// True once: the first time the latest picture is confirmed (the start's repaint goes then).
    mutating func firstConfirmation() -> Bool {
        guard !confirmationTaken, latestConfirmed else { return false }
        confirmationTaken = true
        return true
    }

    /// When ``next(now:)`` may next have something to do (nil: not until a picture is painted).
    func nextDue() -> Double? {
        if let asked = askedAt { return asked + timeout }
        if let since = overdueSince { return since + Self.settleSeconds }
        guard paints > checkedPaints else { return nil }
        return min(lastPaintAt + Self.stillAfter, lastAskedAt + Self.interval)
    }
}

extension Display {
    /// Whether pixel pictures go through tmux's passthrough (and are checked).
    var checksTmuxDelivery: Bool { capabilities.tmux.allowsPassthrough && driver.showsPixels }

    /// UI loop: a check after new pictures, or a lost picture sent again (``TmuxDeliveryCheck``).
    func checkTmuxDelivery(now: Double) {
        guard checksTmuxDelivery else { return }
        screen.tmuxDelivery.painted(count: output.currentTotals.framesPainted, now: now)
        switch screen.tmuxDelivery.next(now: now) {
        case .none: break
        case .ask:
            terminal.withScreen { terminal.emitInScreen(AttributesRoundTrip.query(throughTmux: true)) }
        case .resend:
            AppLog.write("tui", "tmux dropped a picture (no answer in \(String(cFormat: "%.1f", screen.tmuxDelivery.timeout)) s): "
                         + "sent again; \(screen.tmuxDelivery.lost) lost so far")
            output.repaint(full: true)
        }
    }
}
