import AetherBase
import AetherMedia
import AetherScreen
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The equalizer's panel (``EqualizerPanel``): a box at the top of the video area with the
/// curve (its response from 20 Hz to 20 kHz, ±12 dB, the ten bands marked), the bands' gains
/// under it, the chosen band highlighted, and what the engine runs (the preamp it lowered).
///
/// The curve is drawn in pixels where the output has them (a still the output places in
/// ``Geometry/plot``, ``EqualizerCurveImage``), in braille cells otherwise (2 × 4 dots a cell).
struct EqualizerPanelView {
    var panel: EqualizerPanel

    /// Where the panel's parts are on a screen: a function of the video area alone, so that the
    /// mouse finds them without asking the last draw.
    struct Geometry: Equatable {
        /// The whole box, border included.
        var box: CellRect
        /// The curve's cells (inside the box, right of the dB scale).
        var plot: CellRect
        /// The row of the bands' labels and the row of their gains.
        var labelRow: Int
        var gainRow: Int

        /// The dB range the plot shows, top to bottom.
        static let top = 12.0, bottom = -12.0
        /// The frequencies at its left and right edges.
        static let low = 20.0, high = 20_000.0

        init?(videoArea: CellRect) {
            let width = min(videoArea.width - 2, 72), height = min(videoArea.height, 16)
            guard width >= 40, height >= 9 else { return nil }
            box = CellRect(column: videoArea.column + (videoArea.width - width) / 2, row: videoArea.row, width: width, height: height)
            // Inside the border: the scale's 4 columns and a space, then the plot; under it the
            // labels, the gains and the keys' line.
            plot = CellRect(column: box.column + 6, row: box.row + 1, width: width - 8, height: height - 5)
            labelRow = plot.row + plot.height
            gainRow = labelRow + 1
        }

        // The plot's two axes, for whatever draws on it (columns, braille dots, pixels): the
        // frequency's, logarithmic from `low` to `high`, left to right; the gain's, from `top`
        // to `bottom`, top to bottom. A position is one of `count`, from 0.

        /// Where `frequency` falls among `count` positions across (clamped to the axis).
        static func position(ofFrequency frequency: Double, count: Int) -> Int {
            let x = log(frequency / low) / log(high / low)
            return Int((x * Double(count - 1)).rounded()).clamped(to: 0...max(0, count - 1))
        }

        /// The frequency at `position` of `count` across.
        static func frequency(at position: Int, count: Int) -> Double {
            low * pow(high / low, Double(position) / Double(max(1, count - 1)))
        }

        /// Where `gain` falls among `count` positions down (clamped to the axis).
        static func position(ofGain gain: Double, count: Int) -> Int {
            Int(((top - gain.clamped(to: bottom...top)) / (top - bottom) * Double(count - 1)).rounded())
        }

        /// The gain at `position` of `count` down (clamped to the axis).
        static func gain(at position: Int, count: Int) -> Double {
            let y = Double(position) / Double(max(1, count - 1))
            return top + (bottom - top) * y.clamped(to: 0...1)
        }

        /// The column (within the plot) of `frequency` on its log axis.
        func column(of frequency: Double) -> Int {
            plot.column + Self.position(ofFrequency: frequency, count: plot.width)
        }

        /// The band nearest `column` on the screen.
        func band(atColumn column: Int) -> Int {
            GraphicBands.centres.indices.min { abs(self.column(of: GraphicBands.centres[$0]) - column) < abs(self.column(of: GraphicBands.centres[$1]) - column) } ?? 0
        }

        /// The cells the curve spans: the plot, less the rows a pixel output keeps free under
        /// its pictures (`rowsBelow`; 0 for cells).
        func curve(rowsBelow: Int) -> CellRect {
            CellRect(column: plot.column, row: plot.row, width: plot.width, height: max(1, plot.height - rowsBelow))
        }

        /// The gain a press on `row` of the curve means (its rows span the range).
        func gain(atRow row: Int, rowsBelow: Int = 0) -> Double {
            let curve = curve(rowsBelow: rowsBelow)
            return Self.gain(at: row - curve.row, count: curve.height)
        }
    }

    /// The title: what plays and its preamp as it runs.
    var title: String {
        let preamp = String(cFormat: "%+.1f", panel.running.preamp)
        let lowered = panel.running.preamp < panel.setting.curve.preamp ? ", lowered: no clipping" : ""
        return "Equalizer: \(panel.setting.name) · preamp \(preamp) dB\(lowered)"
    }

    /// Draws the panel; the braille curve when `pictureRowsBelow` is nil, else its cells are left
    /// for the picture, which takes the plot less that many rows (what the pixel output keeps
    /// free under a picture). Returns where its parts are, nil when the area is too small.
    @discardableResult
    func render(in videoArea: CellRect, pictureRowsBelow: Int?, into surface: inout some TextSurface) -> Geometry? {
        guard let g = Geometry(videoArea: videoArea) else { return nil }
        let inner = g.box.width - 2
        var lines = Array(repeating: "", count: g.box.height - 2)
        let keys = panel.gains == nil ? "p P presets · r flat bands · e close" : "← → band · ↑ ↓ gain · p P presets · r flat · e close"
        lines[lines.count - 1] = keys
        BoxView(title: title, lines: lines, style: .menu, border: .menuBorder, width: g.box.width)
            .render(at: (g.box.column, g.box.row), into: &surface)
        // The scale, beside the rows the curve spans.
        let curve = g.curve(rowsBelow: pictureRowsBelow ?? 0)
        for (text, db) in [("+12", 12.0), ("  0", 0.0), ("-12", -12.0)] {
            let row = curve.row + Geometry.position(ofGain: db, count: curve.height)
            surface.put(text + " ┤", row: row, column: g.box.column + 1, role: .menuBorder)
        }
        if pictureRowsBelow == nil { braille(g, into: &surface) }
        // The bands: their centres under the plot, their gains under those.
        for (index, centre) in GraphicBands.centres.enumerated() {
            let label = centre >= 1000 ? "\(Int(centre / 1000))k" : "\(Int(centre))"
            let column = min(g.box.column + inner - DisplayWidth.of(label), max(g.plot.column, g.column(of: centre) - DisplayWidth.of(label) / 2))
            let chosen = index == panel.band
            surface.put(label, row: g.labelRow, column: column, role: chosen ? .menuSelected : .menu)
            if let gains = panel.gains {
                let text = gains[index] == 0 ? "0" : String(cFormat: "%+.0f", gains[index])
                surface.put(text, row: g.gainRow, column: min(g.box.column + inner - DisplayWidth.of(text), max(g.plot.column, g.column(of: centre) - DisplayWidth.of(text) / 2)),
                            role: chosen ? .menuSelected : .menu)
            }
        }
        if panel.gains == nil {
            surface.put("\(panel.setting.curve.filters.count) filters from the profile", row: g.gainRow, column: g.plot.column, role: .menu)
        }
        return g
    }

    /// The curve in braille dots: each cell 2 dots wide and 4 high, the response read at each
    /// dot column and drawn joined (the dots between one column's and the next's).
    private func braille(_ g: Geometry, into surface: inout some TextSurface) {
        let (width, height) = (g.plot.width * 2, g.plot.height * 4)
        var dots = Array(repeating: UInt8(0), count: g.plot.width * g.plot.height)
        let bits: [[UInt8]] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]]
        var last: Int?
        for x in 0..<width {
            let frequency = Geometry.frequency(at: x, count: width)
            let y = Geometry.position(ofGain: EqualizerCurveImage.shape(panel.setting.curve, at: frequency), count: height)
            for dy in min(y, last ?? y)...max(y, last ?? y) {
                dots[(dy / 4) * g.plot.width + x / 2] |= bits[dy % 4][x % 2]
            }
            last = y
        }
        for row in 0..<g.plot.height {
            var text = ""
            for column in 0..<g.plot.width {
                let cell = dots[row * g.plot.width + column]
                text.unicodeScalars.append(Unicode.Scalar(0x2800 + UInt32(cell))!)
            }
            surface.put(text, row: g.plot.row + row, column: g.plot.column, role: .menu)
        }
    }
}

/// The equalizer's curve as a picture, for an output that draws pixels: a dark ground, the 0 dB
/// and ±6 dB lines, the bands' centres, the curve two pixels thick, the chosen band's knob.
enum EqualizerCurveImage {
    /// The curve's shape at `frequency`: the filters' response, without the preamp (which the
    /// title gives), at 48 kHz.
    static func shape(_ curve: EqualizerCurve, at frequency: Double) -> Double {
        curve.filters.reduce(0) { $0 + $1.response(at: frequency, sampleRate: 48_000) }
    }

    /// Packed RGB24 pixels, `width` × `height`.
    static func render(_ panel: EqualizerPanel, width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        func plot(_ x: Int, _ y: Int, _ colour: (UInt8, UInt8, UInt8)) {
            guard (0..<width).contains(x), (0..<height).contains(y) else { return }
            let i = (y * width + x) * 3
            (pixels[i], pixels[i + 1], pixels[i + 2]) = colour
        }
        for i in stride(from: 0, to: pixels.count, by: 3) { (pixels[i], pixels[i + 1], pixels[i + 2]) = (18, 20, 26) }
        typealias Axes = EqualizerPanelView.Geometry
        func y(_ db: Double) -> Int { Axes.position(ofGain: db, count: height) }
        func x(_ frequency: Double) -> Int { Axes.position(ofFrequency: frequency, count: width) }
        for db in [-6.0, 0, 6] {
            for column in 0..<width { plot(column, y(db), db == 0 ? (70, 74, 86) : (40, 43, 52)) }
        }
        for (index, centre) in GraphicBands.centres.enumerated() {
            for row in 0..<height { plot(x(centre), row, index == panel.band ? (90, 80, 40) : (40, 43, 52)) }
        }
        var last: Int?
        for column in 0..<width {
            let row = y(shape(panel.setting.curve, at: Axes.frequency(at: column, count: width)))
            for r in min(row, last ?? row)...max(row, last ?? row) {
                plot(column, r, (110, 200, 255))
                plot(column, r + 1, (110, 200, 255))
            }
            last = row
        }
        if let gains = panel.gains {
            let (cx, cy) = (x(GraphicBands.centres[panel.band]), y(gains[panel.band]))
            let radius = max(3, height / 40)
            for dy in -radius...radius {
                for dx in -radius...radius where dx * dx + dy * dy <= radius * radius { plot(cx + dx, cy + dy, (255, 200, 60)) }
            }
        }
        return pixels
    }
}
