import AetherEngine
import ArgumentParser
import Foundation
import TerminalGraphics

/// `aether-bench cells`: what the cell outputs show, measured. Frames of a clip are decoded and
/// scaled exactly as playback does (`DecodePass.pictures`), drawn by the cell renderer in each
/// mode, and the bytes decoded back into the screen a terminal would show
/// (`CellStreamDecoder`); that screen is compared with the source frame area-averaged onto the
/// same sub-cell grid. Beside each mode: the ideals computable from the source alone, and the
/// bytes and render time per frame.
struct CellsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cells",
        abstract: "Cell outputs (half, quadrant, sextant, octant): reconstruction PSNR, bytes and time per frame.")

    @Option(help: "The clip (default: the grainy 1080p clip, made once).") var clip: String?
    @Option(help: "Cells across and down.") var columns = 160
    @Option(help: "Cells down.") var rows = 48
    @Option(help: "Frames measured.") var frames = 48
    @Option(help: "Frames skipped first.") var skip = 120
    @Option(help: "Modes, comma-separated.") var modes = "half,quadrant,sextant,octant"
    @Option(help: "Colour modes, comma-separated: truecolor, 256.") var colors = "truecolor,256"
    @Option(help: "Tolerances to measure, comma-separated (levels; see --vo-cells-tolerance).") var tolerances = "0,12"
    @Flag(help: "Repeat the first measured frame (a still picture).") var still = false
    @Option(help: "Scratch directory.") var workDir = "/tmp/aether-bench-graphics"

    func run() throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let path = try clip ?? FrameSet.grainyClip(directory: workDir)
        let symbolList = modes.split(separator: ",").compactMap { CellSymbols(option: String($0)) }
        let colorList = colors.split(separator: ",").compactMap { CellColorMode(rawValue: String($0)) }
        let toleranceList = tolerances.split(separator: ",").compactMap { Double($0) }
        let rect = CellRect(column: 0, row: 0, width: columns, height: rows)
        print("aether-bench cells: \(path), \(columns)x\(rows) cells, \(frames) frames after \(skip)\(still ? " (one frame repeated)" : ""); "
              + "PSNR against the source area-averaged to 2x4 (and 2x12) sub-cells per cell")

        // The source frames and the reference grids, decoded once.
        var sources: [(source: [UInt8], width: Int, height: Int)] = []
        try DecodePass.pictures(url: path, size: PixelSize(width: 2, height: 2), reference: true, first: skip, every: 1) { p in
            if let s = p.source { sources.append((s, p.sourceWidth, p.sourceHeight)) }
            return sources.count < (still ? 1 : frames)
        }
        guard !sources.isEmpty else { throw ValidationError("no frames decoded from \(path)") }
        let references4 = sources.map { PictureQuality.areaAverage($0.source, width: $0.width, height: $0.height, toWidth: columns * 2, toHeight: rows * 4) }
        let references12 = sources.map { PictureQuality.areaAverage($0.source, width: $0.width, height: $0.height, toWidth: columns * 2, toHeight: rows * 12) }
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(max(1, v.count)) }
        let idealHalf = mean(references4.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 4, symbols: .half)) })
        let idealOctant = mean(references4.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 4, symbols: .octant)) })
        let idealSextant12 = mean(references12.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 12, symbols: .sextant)) })
        let idealOctant12 = mean(references12.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 12, symbols: .octant)) })
        let idealHalf12 = mean(references12.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 12, symbols: .half)) })
        print("ideal half-block   PSNR 2x4 \(Stats.fmt(idealHalf)) dB   2x12 \(Stats.fmt(idealHalf12)) dB")
        print("ideal sextant                       2x12 \(Stats.fmt(idealSextant12)) dB")
        print("ideal octant       PSNR 2x4 \(Stats.fmt(idealOctant)) dB   2x12 \(Stats.fmt(idealOctant12)) dB")

        for symbols in symbolList {
            let size = PixelSize(width: columns * symbols.columns, height: rows * symbols.rows)
            var scaled: [[UInt8]] = []
            try DecodePass.pictures(url: path, size: size, first: skip) { p in
                scaled.append(p.scaled)
                return scaled.count < (still ? 1 : frames)
            }
            for colorMode in colorList {
                for tolerance in toleranceList {
                    let renderer = CellRenderer(symbols: symbols, colorMode: colorMode)
                    renderer.tolerance = tolerance
                    var decoder = CellStreamDecoder(columns: columns, rows: rows)
                    let out = ByteBuffer(capacity: 1 << 20)
                    var psnr4: [Double] = [], psnr12: [Double] = [], ms: [Double] = []
                    var bytes = 0
                    for i in 0..<frames {
                        let k = still ? 0 : min(i, scaled.count - 1)
                        let image = try PixelImage(width: size.width, height: size.height, pixels: scaled[k])
                        out.removeAll()
                        let start = DispatchTime.now().uptimeNanoseconds
                        try renderer.render(image, into: rect, output: out)
                        ms.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                        bytes += out.count
                        decoder.feed(out.bytes)
                        let r = still ? 0 : min(i, references4.count - 1)
                        psnr4.append(PictureQuality.psnr(decoder.pixels(of: rect, gridRows: 4), references4[r]))
                        psnr12.append(PictureQuality.psnr(decoder.pixels(of: rect, gridRows: 12), references12[r]))
                    }
                    let label = "\(symbols) \(colorMode.rawValue)\(tolerance > 0 ? " tol \(Stats.fmt(tolerance, 1))" : "")"
                    print(label.padding(toLength: 26, withPad: " ", startingAt: 0)
                          + " PSNR 2x4 \(Stats.fmt(mean(psnr4))) dB   2x12 \(Stats.fmt(mean(psnr12))) dB"
                          + "   \(Stats.fmt(Double(bytes) / Double(frames) / 1024, 1)) KiB/frame"
                          + "   render median \(Stats.fmt(Stats.median(ms), 2)) ms")
                }
            }
        }
    }
}
