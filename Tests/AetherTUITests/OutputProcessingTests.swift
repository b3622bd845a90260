@testable import AetherScreen
import Glibc
import Testing

/// Which output modes lose `OPOST` (unit tier: a pure rule on the flags).
@Suite struct OutputProcessingTests {
    @Test func processingThatChangesNothingIsTurnedOff() {
        // After nonl(): OPOST alone, tabs kept.
        let off = Terminal.withoutIdentityProcessing(tcflag_t(OPOST))
        #expect(off == 0)
        // Delays change no byte on a terminal emulator; kept as they are.
        #expect(Terminal.withoutIdentityProcessing(tcflag_t(OPOST | NL1 | TAB1)) == tcflag_t(NL1 | TAB1))
    }

    @Test func processingThatTranslatesIsKept() {
        for flag in [ONLCR, OCRNL, ONOCR, ONLRET, OLCUC, OFILL, TAB3] {
            #expect(Terminal.withoutIdentityProcessing(tcflag_t(OPOST | flag)) == nil, "flag \(flag)")
        }
        // Already off.
        #expect(Terminal.withoutIdentityProcessing(0) == nil)
    }
}
