import AetherTestSupport
@testable import AetherThemes
import TerminalGraphics
import Testing

/// #62 item 14 (unit tier): every shipped theme's colours read on the background it is chosen
/// for. The player asks the terminal for its background (OSC 11) and, without `--theme`, takes
/// `light` on a light one and `default` on a dark one; here each theme's roles are measured as
/// xterm draws them (its default 16 colours, which it also reports for OSC 4) on the background
/// its terminal reports: black for the dark themes (Solarized's base03 for `solarized-dark`),
/// white (xterm's and mlterm's own default) for `light`. A role's WCAG 2 contrast with what is behind it is at least 3:1 (WCAG's floor
/// for interface components and large text); dim roles are meant to recede and are not held to it.
/// Before: `default`'s stats border was xterm's blue on black, 2.2:1.
@Suite struct ThemeContrastTests {
    static let black = RGBColour(red: 0, green: 0, blue: 0)
    static let white = RGBColour(red: 1, green: 1, blue: 1)
    static let floor = 3.0

    /// `colour` as xterm draws it, `otherwise` for the terminal's own.
    static func rgb(_ colour: ThemeColor, otherwise: RGBColour) -> RGBColour {
        let (r, g, b): (UInt8, UInt8, UInt8)
        switch colour {
        case .terminalDefault: return otherwise
        case .index(let n): (r, g, b) = XtermPalette.rgb(n)
        case .rgb(let red, let green, let blue): (r, g, b) = (red, green, blue)
        }
        return RGBColour(red: Double(r) / 255, green: Double(g) / 255, blue: Double(b) / 255)
    }

    /// Each role's contrast on a terminal whose default colours are `foreground` on `background`.
    static func contrasts(_ theme: Theme, foreground: RGBColour, background: RGBColour) -> [(ThemeRole, Double)] {
        ThemeRole.allCases.compactMap { role in
            let style = theme[role]
            guard !style.dim else { return nil }
            var front = rgb(style.foreground, otherwise: foreground), back = rgb(style.background, otherwise: background)
            if style.reverse { swap(&front, &back) }
            return (role, front.contrast(with: back))
        }
    }

    @Test(arguments: ["default", "high-contrast", "solarized-dark", "mono", "light"])
    func everyRoleReadsOnItsBackground(name: String) throws {
        let theme = try ThemeTests.shippedTheme(name)
        // Solarized's own terminal colours for its theme (base0 on base03).
        let (foreground, background) = name == "light" ? (Self.black, Self.white)
            : name == "solarized-dark" ? (RGBColour(red: 0x83 / 255.0, green: 0x94 / 255.0, blue: 0x96 / 255.0), RGBColour(red: 0, green: 0x2b / 255.0, blue: 0x36 / 255.0))
            : (Self.white, Self.black)
        let poor = Self.contrasts(theme, foreground: foreground, background: background).filter { $0.1 < Self.floor }
        let said = poor.map { "\($0.0.rawValue) \(String(format: "%.2f", $0.1)):1" }.joined(separator: ", ")
        #expect(poor.isEmpty, "\(name): \(said)")
    }

    /// The choice the player makes from the answer: light backgrounds (xterm's and mlterm's
    /// default white, solarized-light's #fdf6e3) get `light`; black, kitty's #000000 and
    /// solarized-dark's #002b36 the default.
    @Test func theBackgroundDecides() {
        #expect(Self.white.isLight && RGBColour(red: 0xfd / 255.0, green: 0xf6 / 255.0, blue: 0xe3 / 255.0).isLight)
        #expect(!Self.black.isLight && !RGBColour(red: 0, green: 0x2b / 255.0, blue: 0x36 / 255.0).isLight)
        #expect(abs(Self.white.contrast(with: Self.black) - 21) < 0.01)
        // xterm's blue on black, what the newcomer saw around the stats box.
        #expect(Self.rgb(.index(4), otherwise: Self.black).contrast(with: Self.black) < Self.floor)
    }
}
