import AetherCommands
import AetherControl
import AetherInput
import AetherMedia
import AetherScreen
import TerminalGraphics
@testable import AetherTUI
import Testing

/// The equalizer's panel (#63) on values: its keys and the mouse as the update takes them, the
/// commands it sends the controller, following a change made elsewhere, and the view rendered
/// into a cell grid (the curve in braille, the bands and their gains, the chosen one marked) and
/// as a picture. Unit tier.
struct EqualizerPanelTests {
    let context = HostContext(bindings: InputBindings())

    func opened(_ setting: EqualizerSetting = .flat) -> ViewState {
        var view = ViewState()
        var context = context
        context.equalizer = setting
        context.runningEqualizer = setting.curve.safe(sampleRate: 48_000)
        #expect(HostUpdate.update(&view, .ui(.equalizer, now: 1), context: context) == [.redraw])
        return view
    }

    static func bands(_ gains: [Double]) -> PlayerCommand { .set("equalizer", .string(EqualizerChoice.bands(gains).text)) }

    @Test func theKeysMoveBandsChoosePresetsAndClose() {
        var view = opened()
        #expect(view.equalizer?.band == 0 && view.equalizer?.setting == .flat)
        #expect(HostUpdate.update(&view, .key(.up), context: context) == [.command(Self.bands([1, 0, 0, 0, 0, 0, 0, 0, 0, 0])), .redraw])
        #expect(view.equalizer?.setting.choice == .bands([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), "the panel shows it at once")
        _ = HostUpdate.update(&view, .key(.right), context: context)
        _ = HostUpdate.update(&view, .key(.right), context: context)
        #expect(HostUpdate.update(&view, .key(.down), context: context) == [.command(Self.bands([1, 0, -1, 0, 0, 0, 0, 0, 0, 0])), .redraw])
        for _ in 0..<20 { _ = HostUpdate.update(&view, .key(.right), context: context) }
        #expect(view.equalizer?.band == 9, "the last band is the last")
        for _ in 0..<20 { _ = HostUpdate.update(&view, .key(.up), context: context) }
        #expect(view.equalizer?.gains?[9] == 12, "a band stops at +12 dB")
        #expect(HostUpdate.update(&view, .key(.character("p")), context: context) == [.command(.cycle("equalizer", up: true))])
        #expect(HostUpdate.update(&view, .key(.character("P")), context: context) == [.command(.cycle("equalizer", up: false))])
        #expect(HostUpdate.update(&view, .key(.character("r")), context: context) == [.command(.set("equalizer", .string("flat"))), .redraw])
        // Bands all back at 0 dB are flat.
        view = opened(EqualizerSetting(choice: .bands([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), curve: GraphicBands.curve([1, 0, 0, 0, 0, 0, 0, 0, 0, 0])))
        #expect(HostUpdate.update(&view, .key(.down), context: context) == [.command(.set("equalizer", .string("flat"))), .redraw])
        // What the panel does not take goes to the bindings: space still pauses.
        #expect(HostUpdate.update(&view, .key(.character(" ")), context: context) == context.bindings.command(for: .character(" ")).map { [.command($0)] })
        #expect(HostUpdate.update(&view, .key(.escape), context: context) == [.redraw] && view.equalizer == nil)
        view = opened()
        _ = HostUpdate.update(&view, .ui(.equalizer, now: 2), context: context)
        #expect(view.equalizer == nil, "e again closes it")
    }

    @Test func aProfilesFiltersAreNotBands() {
        let profile = EqualizerSetting(choice: .profile(path: "/eq/hd600.txt"), curve: EqualizerCurve(preamp: -3, filters: [EqualizerFilter(.lowShelf, frequency: 105, gain: 5, q: 0.7)]))
        var view = opened(profile)
        #expect(view.equalizer?.gains == nil)
        #expect(HostUpdate.update(&view, .key(.up), context: context) == [.redraw])
        #expect(view.message.current?.text.hasPrefix("a profile's filters are its own") == true)
        #expect(view.equalizer?.setting == profile, "the profile stays")
    }

    @Test func theMouseSetsABandWhereItPresses() throws {
        var view = opened(EqualizerSetting(choice: .preset(.bass), curve: EqualizerPreset.bass.curve))
        #expect(HostUpdate.update(&view, .equalizerMouse(band: 6, gain: 4.6, wheelUp: nil), context: context)
                == [.command(Self.bands([6, 5, 4, 2, 1, 0, 5, 0, 0, 0])), .redraw], "from the preset's gains, the band at the pressed dB")
        #expect(view.equalizer?.band == 6)
        #expect(HostUpdate.update(&view, .equalizerMouse(band: 6, gain: nil, wheelUp: false), context: context)
                == [.command(Self.bands([6, 5, 4, 2, 1, 0, 4, 0, 0, 0])), .redraw])
        #expect(HostUpdate.update(&view, .equalizerMouse(band: 2, gain: nil, wheelUp: nil), context: context) == [.redraw])
        #expect(view.equalizer?.band == 2, "a press on the labels chooses the band")
        // Where a press lands: the geometry's band and gain.
        let g = try #require(EqualizerPanelView.Geometry(videoArea: CellRect(column: 0, row: 1, width: 120, height: 36)))
        #expect(g.band(atColumn: g.column(of: 1000)) == 5 && g.band(atColumn: g.plot.column) == 0 && g.band(atColumn: g.plot.column + g.plot.width - 1) == 9)
        #expect(g.gain(atRow: g.plot.row) == 12 && g.gain(atRow: g.plot.row + g.plot.height - 1) == -12)
        #expect(EqualizerPanelView.Geometry(videoArea: CellRect(column: 0, row: 1, width: 30, height: 36)) == nil, "too narrow: no panel")
    }

    @Test func thePanelFollowsTheEqualizerSetElsewhere() {
        var view = opened()
        var context = context
        context.equalizer = EqualizerSetting(choice: .preset(.vocal), curve: EqualizerPreset.vocal.curve)
        context.runningEqualizer = EqualizerPreset.vocal.curve.safe(sampleRate: 48_000)
        #expect(HostUpdate.update(&view, .tick(now: 2), context: context).contains(.redraw))
        #expect(view.equalizer?.setting.choice == .preset(.vocal))
        #expect(!HostUpdate.update(&view, .tick(now: 3), context: context).contains(.redraw), "nothing new: no redraw")
    }

    @Test func theViewDrawsTheCurveTheBandsAndThePreamp() throws {
        let setting = EqualizerSetting(choice: .preset(.bass), curve: EqualizerPreset.bass.curve)
        var panel = EqualizerPanel(setting: setting, running: setting.curve.safe(sampleRate: 48_000))
        panel.band = 2
        var grid = CellGrid(columns: 100, rows: 30)
        let area = CellRect(column: 0, row: 1, width: 100, height: 26)
        let g = try #require(EqualizerPanelView(panel: panel).render(in: area, pictureRowsBelow: nil, into: &grid))
        #expect(grid.lines[g.box.row].contains("Equalizer: bass · preamp -7.1 dB, lowered: no clipping"), "\(grid.text)")
        // The curve: dots above the 0 dB row at the low end, and on it at the high end.
        let zeroRow = g.plot.row + (g.plot.height - 1) / 2
        func dots(_ row: Int, _ column: Int) -> Bool {
            let s = grid.cells[row][column].scalar.value
            return s > 0x2800 && s <= 0x28FF
        }
        #expect((g.plot.row..<zeroRow).contains { dots($0, g.plot.column + 2) }, "bass is above 0 dB at 20–30 Hz\n\(grid.text)")
        #expect(dots(zeroRow, g.plot.column + g.plot.width - 2) && !(g.plot.row..<zeroRow).contains { dots($0, g.plot.column + g.plot.width - 2) },
                "flat at 20 kHz\n\(grid.text)")
        #expect(grid.lines[g.labelRow].contains("31") && grid.lines[g.labelRow].contains("16k"))
        #expect(grid.lines[g.gainRow].contains("+6") && grid.lines[g.gainRow].contains("+4"))
        let chosen = grid.lines[g.labelRow].range(of: "125").map { grid.lines[g.labelRow].distance(from: grid.lines[g.labelRow].startIndex, to: $0.lowerBound) }
        #expect(chosen.map { grid.roles[g.labelRow][$0] } == .menuSelected, "the chosen band is marked")
        // A pixel output: the plot's cells are left for the picture.
        var pixelGrid = CellGrid(columns: 100, rows: 30)
        _ = EqualizerPanelView(panel: panel).render(in: area, pictureRowsBelow: 2, into: &pixelGrid)
        #expect(pixelGrid.lines[g.plot.row + g.plot.height - 3].contains("-12 ┤"), "the scale beside the picture, which the driver keeps two rows short\n\(pixelGrid.text)")
        #expect(g.gain(atRow: g.plot.row + g.plot.height - 3, rowsBelow: 2) == -12)
        #expect(!(g.plot.row..<(g.plot.row + g.plot.height)).contains { row in (g.plot.column..<(g.plot.column + g.plot.width)).contains { column in
            let s = pixelGrid.cells[row][column].scalar.value
            return s > 0x2800 && s <= 0x28FF
        } })
    }

    /// The picture: the curve's colour above the 0 dB line at the low end for bass, on it at the
    /// high end.
    @Test func thePictureDrawsTheCurve() {
        let setting = EqualizerSetting(choice: .preset(.bass), curve: EqualizerPreset.bass.curve)
        let panel = EqualizerPanel(setting: setting, running: setting.curve)
        let (w, h) = (400, 120)
        let pixels = EqualizerCurveImage.render(panel, width: w, height: h)
        #expect(pixels.count == w * h * 3)
        func curveRow(atColumn x: Int) -> Int? {
            (0..<h).first { y in let i = (y * w + x) * 3; return pixels[i] == 110 && pixels[i + 1] == 200 && pixels[i + 2] == 255 }
        }
        let zero = Int((12.0 / 24 * Double(h - 1)).rounded())
        #expect((curveRow(atColumn: 10) ?? h) < zero - 10, "bass raises the low end: \(String(describing: curveRow(atColumn: 10)))")
        #expect(curveRow(atColumn: w - 2).map { abs($0 - zero) <= 1 } == true, "flat at the top end")
    }
}
