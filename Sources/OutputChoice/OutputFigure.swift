import TerminalGraphics

/// One way of drawing that `--vo=auto` weighs: a driver, and for kitty how frames travel
/// (shared memory or direct), which the terminal may take at very different speeds.
public struct OutputCandidate: Sendable, Equatable {
    /// The `--vo` name.
    public var driver: String
    /// kitty only: the transmission measured (nil for every other driver).
    public var kitty: KittyEncoder.Transmission?

    public init(driver: String, kitty: KittyEncoder.Transmission? = nil) {
        self.driver = driver
        self.kitty = kitty
    }

    /// The name in `caps`, the log and `terminals.json`: `sixel`, `kitty (shared memory)`.
    public var label: String { kitty.map { "\(driver) (\($0.rawValue))" } ?? driver }

    /// The candidate a label names (nil for a label no candidate has: a hostile or old file).
    /// (A driver that can send by shared memory is named with its way; a headless one draws
    /// nothing to measure.)
    public init?(label: String) {
        for entry in VideoDrivers.all where entry.offersSharedMemory {
            for transmission in [KittyEncoder.Transmission.sharedMemory, .direct] where label == "\(entry.name) (\(transmission.rawValue))" {
                self.init(driver: entry.name, kitty: transmission)
                return
            }
        }
        guard let entry = VideoDrivers.entry(named: label), !entry.isHeadless, !entry.offersSharedMemory else { return nil }
        self.init(driver: label)
    }

    /// The driver options that draw this way (kitty's transmission forced to the one measured).
    public func options(_ base: VideoDrivers.Options) -> VideoDrivers.Options {
        var options = base
        if let kitty { options.kittySharedMemory = kitty == .sharedMemory ? .yes : .no }
        return options
    }

    /// What `auto` weighs on a terminal with `caps`: every driver that suits it, best first
    /// (``VideoDrivers/all``'s order), kitty both ways where the terminal read shared memory and
    /// `--vo-kitty-use-shm` is `auto` (else only the way it names).
    public static func all(for caps: TerminalCapabilities, options: VideoDrivers.Options = .init()) -> [OutputCandidate] {
        VideoDrivers.all.filter { !$0.isHeadless && $0.suits(caps) }.flatMap { entry -> [OutputCandidate] in
            guard entry.offersSharedMemory else { return [OutputCandidate(driver: entry.name)] }
            let ways: [KittyEncoder.Transmission] = switch options.kittySharedMemory {
            case .auto: KittySharedMemoryUse.auto.transmission(for: caps) == .sharedMemory ? [.sharedMemory, .direct] : [.direct]
            case .yes: [.sharedMemory]
            case .no: [.direct]
            }
            return ways.map { OutputCandidate(driver: entry.name, kitty: $0) }
        }
    }
}

/// What one candidate showed in the throughput trial: the detail of one frame and how long a
/// frame took, from the start of its encoding to the terminal's answer to a query sent after it
/// (the terminal answers in order, so the frame had been absorbed by then).
public struct OutputFigure: Sendable, Equatable {
    /// ``OutputCandidate/label``.
    public var label: String
    /// The source detail one frame shows: picture pixels (sixel, kitty), or cells counted at
    /// their sub-cell resolution (octants 2×4 per cell, half blocks 1×2).
    public var pixels: Int
    /// Milliseconds per frame: encode plus the terminal's absorbing it.
    public var milliseconds: Double
    /// The share of the pixels left at the governor's floor (its smallest rung's scale,
    /// squared: ¼ for sixel and kitty, 1 for cells, which the governor does not shrink).
    public var floor: Double

    public init(label: String, pixels: Int, milliseconds: Double, floor: Double = 1) {
        self.label = label
        self.pixels = max(0, pixels)
        self.milliseconds = milliseconds.isFinite ? max(0.01, milliseconds) : 1e6
        self.floor = floor.isFinite ? min(1, max(0.01, floor)) : 1
    }

    /// The share of a driver's pixels at its governor floor (``floor``).
    public static func floor(of driver: any VideoDriver) -> Double {
        let scale = driver.qualityRungs.map(\.scale).min() ?? 1
        return scale * scale
    }

    /// Whether the output can play a source of `sourceFPS` at all: at the governor's floor
    /// (time taken as scaling with the pixels) it keeps at least a third of the frames, the
    /// governor's last frame rung before it gives the output up.
    public func keepsUp(sourceFPS: Double) -> Bool { milliseconds <= Self.slowestKeepingUp(sourceFPS: sourceFPS, floor: floor) }

    /// The slowest frame, in milliseconds at full size, of an output that keeps up (its frame
    /// rate at the floor, fps ÷ `floor`, at least a third of `sourceFPS`): 3000 ÷ (fps × floor).
    public static func slowestKeepingUp(sourceFPS: Double, floor: Double) -> Double { 3000 / (max(1, sourceFPS) * floor) }

    /// Frames per second the terminal keeps with this output.
    public var framesPerSecond: Double { 1000 / milliseconds }

    /// Source detail per second shown at a source of `sourceFPS`: pixels × the frame rate it
    /// keeps (never more frames than the source has).
    public func shownDetail(sourceFPS: Double) -> Double {
        Double(pixels) * min(max(1, sourceFPS), framesPerSecond)
    }

    /// The figure for a picture of `pixels` (another window size): the time scales with the
    /// pixels, which is what the bytes and the encoding scale with.
    public func scaled(toPixels newPixels: Int) -> OutputFigure {
        guard pixels > 0, newPixels > 0 else { return self }
        return OutputFigure(label: label, pixels: newPixels, milliseconds: milliseconds * Double(newPixels) / Double(pixels), floor: floor)
    }
}

/// `--vo=auto`'s rule: the output that shows the most source detail at the source frame rate,
/// with hysteresis.
public enum OutputChoice {
    /// Another output replaces the one kept only when it shows this much more detail.
    public static let margin = 1.25

    /// The figure to draw with, among those that keep up (``OutputFigure/keepsUp(sourceFPS:)``;
    /// when none does, the fastest): the most ``OutputFigure/shownDetail(sourceFPS:)``; a tie (within
    /// 1 %) goes to the earlier figure (the candidates' order, best first); `keeping` (the output
    /// in use or remembered) stays unless another shows ``margin`` times its detail.
    public static func choose(_ figures: [OutputFigure], sourceFPS: Double, keeping: String? = nil) -> OutputFigure? {
        // Outputs that cannot keep up even at the governor's floor are out while another can.
        let playable = figures.filter { $0.keepsUp(sourceFPS: sourceFPS) }
        guard !playable.isEmpty else { return figures.max { $0.framesPerSecond < $1.framesPerSecond } }
        var best: OutputFigure?
        for figure in playable where best.map({ figure.shownDetail(sourceFPS: sourceFPS) > $0.shownDetail(sourceFPS: sourceFPS) * 1.01 }) ?? true {
            best = figure
        }
        guard let best, let kept = playable.first(where: { $0.label == keeping }) else { return best }
        return best.shownDetail(sourceFPS: sourceFPS) >= kept.shownDetail(sourceFPS: sourceFPS) * margin ? best : kept
    }

    /// One line per figure for `caps` and the log:
    /// `  sixel: 518400 px a frame, 269.9 ms a frame, 3.7 of 24.0 fps, 1.9 Mpx/s shown  ← chosen`.
    public static func lines(_ figures: [OutputFigure], sourceFPS: Double, chosen: String?) -> [String] {
        figures.map { f in
            let fps = min(sourceFPS, f.framesPerSecond)
            return "  \(f.label): \(f.pixels) px a frame, \(format(f.milliseconds)) ms a frame, "
                + "\(format(fps)) of \(format(sourceFPS)) fps, \(format(f.shownDetail(sourceFPS: sourceFPS) / 1e6)) Mpx/s shown"
                + (f.keepsUp(sourceFPS: sourceFPS) ? "" : " (cannot keep up)") + (f.label == chosen ? "  ← chosen" : "")
        }
    }

    static func format(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
