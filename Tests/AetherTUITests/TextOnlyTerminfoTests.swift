@testable import AetherScreen
@testable import AetherTUI
import Foundation
import Testing

/// The terminfo entry ncurses reads has no capability that changes cells it did not draw text
/// into; hostile TERM values never reach infocmp, tic or the file system.
struct TextOnlyTerminfoTests {
    @Test func filterDropsEraseAndScrollCapabilitiesOnly() throws {
        let source = """
        #\tReconstructed via infocmp from file: /usr/share/terminfo/s/screen-256color
        screen-256color|GNU Screen with 256 colors,
        \tam,
        \tcolors#0x100,
        \tclear=\\E[H\\E[J,
        \tcsr=\\E[%i%p1%d;%p2%dr,
        \tcup=\\E[%i%p1%d;%p2%dH,
        \ted=\\E[J,
        \tel=\\E[K,
        \tel1=\\E[1K,
        \tind=\\n,
        \tri=\\EM,
        \tdl=\\E[%p1%dM,
        \til1=\\E[L,
        \tkcuu1=\\EOA,

        """
        let filtered = try #require(TextOnlyTerminfo.filter(source))
        for gone in ["csr=", "ed=", "el=", "el1=", "ind=", "ri=", "dl=", "il1="] {
            #expect(!filtered.contains("\t" + gone), "\(gone) kept")
        }
        for kept in ["am,", "colors#0x100,", "clear=", "cup=", "kcuu1="] {
            #expect(filtered.contains("\t" + kept), "\(kept) dropped")
        }
        #expect(filtered.hasPrefix("screen-256color|GNU Screen with 256 colors,\n"))
        #expect(!filtered.contains("Reconstructed"))
    }

    @Test func filterRefusesWhatIsNotOneEntry() {
        #expect(TextOnlyTerminfo.filter("") == nil)
        #expect(TextOnlyTerminfo.filter("\tam,\n") == nil)
        #expect(TextOnlyTerminfo.filter("a|one,\n\tam,\nb|two,\n\tam,\n") == nil)
    }

    @Test func hostileTermNamesAreRefused() {
        for bad in ["", "-x", "../../etc/passwd", "xterm\u{1B}[31m", "a b", "x;rm -rf /", ".hidden",
                    String(repeating: "x", count: 65), "xterm\n", "ｘterm"] {
            #expect(TextOnlyTerminfo.safeName(bad) == nil, "accepted \(bad.debugDescription)")
        }
        for good in ["xterm-256color", "screen.xterm-256color", "rxvt-unicode-256color", "st+kitty"] {
            #expect(TextOnlyTerminfo.safeName(good) == good)
        }
    }

    /// The real tools: the compiled entry is where TERMINFO points, without `el`.
    @Test func compiledEntryHasNoEraseCapability() throws {
        let directory = try #require(TextOnlyTerminfo.prepare(term: "xterm-256color"), "infocmp/tic unavailable")
        defer { TextOnlyTerminfo.remove(directory) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/infocmp")
        p.arguments = ["-1", "xterm-256color"]
        p.environment = ["TERMINFO": directory]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(text.contains("cup="), "no entry compiled:\n\(text)")
        #expect(!text.contains("\tel=") && !text.contains("\tcsr=") && !text.contains("\ted="), "erase or scroll kept:\n\(text)")
    }
}
