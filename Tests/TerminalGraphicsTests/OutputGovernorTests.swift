import AetherBase
import TerminalGraphics
import Testing

@Suite struct OutputGovernorTests {
    let interval = 1.0 / 24

    /// Feeds `seconds` of frames at 24 fps with the given load; returns every change.
    func feed(_ g: inout OutputGovernor, from start: Double, seconds: Double, load: Double,
              superseded: Int = 0, stalled: Bool = false) -> [OutputGovernor.Settings] {
        var changes: [OutputGovernor.Settings] = []
        var t = start
        while t < start + seconds {
            let sample = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: load * interval * 0.6,
                                               writeSeconds: load * interval * 0.4, superseded: superseded, stalled: stalled)
            if let s = g.add(sample, now: t) { changes.append(s) }
            t += interval
        }
        return changes
    }

    @Test func overloadStepsDownInOrderAndStopsAtTheFloor() {
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        let changes = feed(&g, from: 0, seconds: 30, load: 1.5)
        #expect(changes.map(\.colors) == [128, 64, 64, 64, 64, 64, 64], "\(changes)")
        #expect(changes.map(\.scale) == [1, 1, 0.75, 0.75, 0.5, 0.5, 0.5], "\(changes)")
        #expect(changes.map(\.frameDivisor) == [1, 1, 1, 2, 2, 3, 3], "\(changes)")
        #expect(changes.last?.fallback == true)
        #expect(g.level == g.rungs.count - 1)
        // At the floor, more overload changes nothing.
        #expect(feed(&g, from: 30, seconds: 5, load: 3).isEmpty)
    }

    @Test func supersededFramesAndLateFramesCountAsOverload() {
        var g = OutputGovernor(rungs: KittyDriver.qualityRungs, clock: .monotonic)
        // One frame superseded for every one painted: twice too much, so about half the cost
        // (×0.75, every 2nd frame: frames go before pixels).
        #expect(feed(&g, from: 0, seconds: 1.5, load: 0.3, superseded: 1).first == OutputGovernor.Settings(scale: 0.75, frameDivisor: 2))
        var k = OutputGovernor(rungs: KittyDriver.qualityRungs, clock: .monotonic)
        // One in five superseded: one rung.
        var kittyChanges: [OutputGovernor.Settings] = []
        for i in 0..<40 {
            let s = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: 0.001, writeSeconds: 0.001,
                                          superseded: i % 4 == 0 ? 1 : 0)
            if let c = k.add(s, now: Double(i) * interval) { kittyChanges.append(c) }
        }
        #expect(kittyChanges.first?.scale == 0.75, "\(kittyChanges)")
        var h = OutputGovernor(rungs: CellDriver.qualityRungs(for: .half), clock: .monotonic)
        var changes: [OutputGovernor.Settings] = []
        for i in 0..<48 {
            let late = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: 0.001, writeSeconds: 0.001, latency: 0.2)
            if let s = h.add(late, now: Double(i) * interval) { changes.append(s) }
        }
        // Late frames the terminal had time for (1 ms a frame): the source cannot keep up, and
        // fewer frames is what helps: straight to every 2nd frame.
        #expect(changes == [OutputGovernor.Settings(frameDivisor: 2, tolerance: CellDriver.governedTolerance)], "\(changes)")
    }

    /// 4K60 on two cores: frames reach the sixel terminal 1.6 intervals late while it takes
    /// each in 0.6 of one (aether-bench's figures). The first judgement goes to the first rung that paints fewer frames
    /// (not the palette and then the picture's size first), and it does not step back up while
    /// frames are late; a few late frames among many on time change nothing.
    @Test func framesLateFromTheSourceGoStraightToFewerFrames() {
        let sixty = 1.0 / 60
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        var changes: [(Double, OutputGovernor.Settings)] = []
        var t = 0.0
        while t < 8 {
            let late = OutputGovernor.Sample(frameInterval: sixty, encodeSeconds: 0.007, writeSeconds: 0.003,
                                             latency: (g.settings.frameDivisor == 1 ? 1.6 : 0.3) * sixty)
            if let s = g.add(late, now: t) { changes.append((t, s)) }
            t += sixty * Double(g.settings.frameDivisor)
        }
        #expect(changes.count == 1 && changes[0].1.frameDivisor == 2 && changes[0].0 < 0.25, "\(changes)")
        // With headroom, it does not try every frame again until the longest hold has passed.
        var up: [(Double, OutputGovernor.Settings)] = []
        while t < 60 {
            let easy = OutputGovernor.Sample(frameInterval: sixty, encodeSeconds: 0.002, writeSeconds: 0.001)
            if let s = g.add(easy, now: t) { up.append((t, s)) }
            t += sixty * Double(g.settings.frameDivisor)
        }
        #expect(up.first.map { $0.0 >= OutputGovernor.longestUpHold && $0.1.frameDivisor == 1 } == true, "\(up.map { ($0.0, $0.1.frameDivisor) })")
        var h = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        for i in 0..<240 {
            let sample = OutputGovernor.Sample(frameInterval: sixty, encodeSeconds: 0.007, writeSeconds: 0.003,
                                               latency: i % 20 == 0 ? 3 * sixty : 0)
            #expect(h.add(sample, now: Double(i) * sixty) == nil, "stepped at frame \(i)")
        }
    }

    /// A terminal that takes only 6 of 24 frames a second (xterm with 1080p grain): the rest
    /// are superseded. Fewer than 12 samples a second must still step down (it never did).
    @Test func aSlowTerminalPaintingFewFramesStillStepsDown() {
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        var changes: [OutputGovernor.Settings] = []
        var t = 0.0
        while t < 3 {
            let sample = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: 0.015, writeSeconds: 0.15,
                                               latency: 0.1, superseded: 3, stalled: true)
            if let s = g.add(sample, now: t) { changes.append(s) }
            t += 1.0 / 6
        }
        // Three of four frames superseded is four times too much: one jump to about a quarter
        // of the cost (64 colours at ×0.75, every 2nd frame), not one rung a second.
        #expect(changes.first == OutputGovernor.Settings(colors: 64, scale: 0.75, frameDivisor: 2), "\(changes)")
        // Two frames are not enough to judge, however slow they were.
        var h = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        let slow = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: 0.5, writeSeconds: 0.5, superseded: 20)
        #expect(h.add(slow, now: 0) == nil && h.add(slow, now: 1.1) == nil)
    }

    /// Half-block is a one-way step: a start-up spike that throws the governor to the rung
    /// before it does not also take the driver away; seconds of overload there do.
    /// The first frames on a slow terminal (measured in xterm: 256 colours at 1280×720 took
    /// 45–60 ms a frame, with a quick one among them): six frames whose median overran its
    /// interval step down at once instead of after a second of superseded frames; one slow
    /// frame in four among quick ones does not.
    @Test func sixMostlyOverrunFramesStepDownAtOnce() {
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        var changes: [(time: Double, settings: OutputGovernor.Settings)] = []
        var t = 0.0
        for write in [0.048, 0.020, 0.043, 0.033, 0.044, 0.041, 0.039, 0.042] {
            let sample = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: 0.014, writeSeconds: write)
            if let s = g.add(sample, now: t) { changes.append((t, s)) }
            t += 0.06
        }
        #expect(changes.count == 1)
        #expect(changes.first?.settings.colors == 128)
        #expect((changes.first?.time ?? 1) < 0.35, "judged on the sixth frame")
        var spiky = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        t = 0
        for i in 0..<10 {
            let slow = i % 4 == 0
            let sample = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: 0.01, writeSeconds: slow ? 0.06 : 0.01)
            #expect(spiky.add(sample, now: t) == nil)
            t += interval
        }
    }

    @Test func theLastRungNeedsSustainedOverload() {
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        var changes: [(time: Double, settings: OutputGovernor.Settings)] = []
        var t = 0.0
        while t < 6 {
            let sample = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: 0.4, writeSeconds: 0.4)
            if let s = g.add(sample, now: t) { changes.append((t, s)) }
            t += interval
        }
        // One jump to the rung before the last (never straight to half-block)…
        #expect(changes.count == 2, "\(changes)")
        #expect(changes.first?.settings == g.rungs[g.rungs.count - 2], "\(changes)")
        #expect((changes.first?.time ?? 9) < 1.5)
        // …and half-block only after the hold on it.
        if changes.count == 2 {
            #expect(changes[1].settings.fallback)
            #expect(changes[1].time - changes[0].time >= OutputGovernor.fallbackHoldSeconds)
            #expect(changes[1].time - changes[0].time < OutputGovernor.fallbackHoldSeconds + 0.2)
        }
    }

    @Test func headroomStepsBackUpAfterAWhile() {
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        _ = feed(&g, from: 0, seconds: 2, load: 1.5)
        // (Overload still in the window may take one more step in the first second.)
        _ = feed(&g, from: 2, seconds: 1, load: 0.2)
        let down = g.level
        #expect(down >= 1)
        // Headroom for less than the hold time: nothing.
        #expect(feed(&g, from: 3, seconds: 1.5, load: 0.2).isEmpty)
        // Sustained headroom: back up one rung at a time, to full quality.
        let ups = feed(&g, from: 4.5, seconds: 20, load: 0.2)
        #expect(ups.count == down)
        #expect(g.level == 0 && g.settings.colors == 256)
    }

    @Test func aLoadThatOnlyFitsTheLowerRungDoesNotOscillate() {
        // Overload at the top rung, headroom one rung down: every retry fails at once.
        var g = OutputGovernor(rungs: CellDriver.qualityRungs(for: .half), clock: .monotonic)
        var changes = 0
        var t = 0.0
        while t < 120 {
            let load = g.level == 0 ? 1.4 : 0.3
            let sample = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: load * interval, writeSeconds: 0)
            if g.add(sample, now: t) != nil { changes += 1 }
            t += interval
        }
        // With a fixed 3 s hold it would change ~2 × 120 / 4 = 60 times; the doubling hold
        // allows down, up 3 s later, down, up 6 s later, … (3 + 6 + 12 + 24 + 48 + 48 < 120).
        #expect(changes <= 14, "\(changes) changes in 120 s")
        #expect(changes >= 4)
    }

    @Test func pinnedNeverChanges() {
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), enabled: false, clock: .monotonic)
        #expect(feed(&g, from: 0, seconds: 10, load: 5, superseded: 3, stalled: true).isEmpty)
        #expect(g.settings == OutputGovernor.Settings(colors: 256))
        #expect(g.describe(driverName: "sixel", fps: 24) == "sixel 256 colours 24 fps (pinned)")
    }

    @Test func descriptions() {
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 128), clock: .monotonic)
        #expect(g.rungs.first?.colors == 128 && g.rungs[1].colors == 64)
        #expect(g.describe(driverName: "sixel", fps: 24) == "sixel 128 colours 24 fps (full quality)")
        _ = feed(&g, from: 0, seconds: 3.5, load: 2)
        #expect(g.describe(driverName: "sixel", fps: 24) == "sixel 64 colours ×0.75 24 fps (governed)"
                || g.describe(driverName: "sixel", fps: 24).contains("(governed)"))
        let h = OutputGovernor(rungs: CellDriver.qualityRungs(for: .half), clock: .monotonic)
        #expect(h.describe(driverName: "halfblock", fps: 23.976) == "halfblock 24 fps (full quality)")
    }

    /// A terminal far too slow for any rung (a frame costs 0.6 s × the picture's share of
    /// pixels: 14 times the frame interval at full size), judged in closed loop as the render
    /// thread does (a painted frame of a rung that paints every n-th frame has n intervals):
    /// the governor goes down to the pixel driver's last resort and never asks for a picture
    /// below its floor, half the cell-pixel resolution of the placement; in every ladder frames
    /// are dropped (every 2nd) before the picture reaches the floor.
    @Test func aSlowTerminalNeverTakesThePictureBelowTheFloor() {
        let ladders: [(String, [OutputGovernor.Settings])] = [
            ("kitty", KittyDriver.qualityRungs), ("sixel", SixelDriver.qualityRungs(maxColors: 256)),
            ("sixel 16", SixelDriver.qualityRungs(maxColors: 16)),
        ]
        for (name, rungs) in ladders {
            var g = OutputGovernor(rungs: rungs, clock: .monotonic)
            var scales: [Double] = [g.settings.scale]
            var t = 0.0, frame = 0
            while t < 60 {
                let s = g.settings
                frame += 1
                if frame % s.frameDivisor == 0 {
                    let cost = 0.6 * s.scale * s.scale
                    let sample = OutputGovernor.Sample(frameInterval: interval * Double(s.frameDivisor), encodeSeconds: cost * 0.2,
                                                       writeSeconds: cost * 0.8, latency: cost, superseded: 2, stalled: true)
                    if let change = g.add(sample, now: t) { scales.append(change.scale) }
                }
                t += interval
            }
            #expect(scales.allSatisfy { $0 >= OutputGovernor.minimumScale }, "\(name): \(scales)")
            #expect(g.settings.fallback && g.level == g.rungs.count - 1, "\(name) ended at \(g.settings)")
            let firstDrop = rungs.firstIndex { $0.frameDivisor > 1 } ?? rungs.count
            let firstFloor = rungs.firstIndex { $0.scale <= OutputGovernor.minimumScale } ?? rungs.count
            #expect(firstDrop < firstFloor, "\(name): frames are not dropped before the picture reaches the floor")
            #expect(rungs.allSatisfy { $0.scale >= OutputGovernor.minimumScale && $0.frameDivisor <= 3 }, "\(name)")
        }
        // A rung below the floor is raised to it, and no placement is made below it: a 720p
        // fit (1223×688 here) stays at least half of it however small the scale asked.
        let g = OutputGovernor(rungs: [.init(), .init(scale: 0.05, frameDivisor: 9), .init(scale: .nan)], clock: .monotonic)
        #expect(g.rungs.map(\.scale) == [1, 0.5, 1] && g.rungs[1].frameDivisor == 3, "\(g.rungs)")
        let geometry = TerminalGeometry(columns: 160, rows: 48, cellSize: CellSize(width: 8, height: 16))
        let area = CellRect(column: 0, row: 1, width: 160, height: 45)
        let full = KittyDriver(clock: .monotonic).placement(for: area, displayAspect: 16.0 / 9, geometry: geometry, scale: 1)
        let tiny = KittyDriver(clock: .monotonic).placement(for: area, displayAspect: 16.0 / 9, geometry: geometry, scale: 0.05)
        #expect(full.pictureSize == PixelSize(width: 1223, height: 688), "\(full)")
        #expect(tiny.pictureSize.width * 2 >= full.pictureSize.width && tiny.pictureSize.height * 2 >= full.pictureSize.height, "\(tiny)")
        #expect(tiny.rect == full.rect, "kitty stretches the smaller picture over the same cells: \(tiny.rect)")
        let sixelDriver = SixelDriver(colors: 256, dither: .none)
        let sixelFull = sixelDriver.placement(for: area, displayAspect: 16.0 / 9, geometry: geometry, scale: 1)
        let sixel = sixelDriver.placement(for: area, displayAspect: 16.0 / 9, geometry: geometry, scale: 0.05)
        // (Sixel heights are multiples of 6: at most 5 pixel rows under the exact half.)
        #expect(sixel.pictureSize.height * 2 >= sixelFull.pictureSize.height - 10 && sixel.pictureSize.height >= 336, "\(sixel) of \(sixelFull)")
    }

    /// The ladders are the drivers' own (the governor knows no kind of output): a sixel driver's
    /// starts at its palette, the pixel drivers end in the registry's fallback, half-block and the
    /// null driver have nothing to fall back to.
    @Test func eachDriverBringsItsOwnLadder() {
        let sixel = SixelDriver(colors: 64, dither: .none, repaint: .full)
        #expect(sixel.qualityRungs.first == OutputGovernor.Settings(colors: 64))
        #expect(!sixel.qualityRungs.contains { ($0.colors ?? 0) > 64 })
        #expect(sixel.qualityRungs.last?.fallback == true)
        #expect(sixel.logDetail == "repaint full, overlays transparent")
        #expect(SixelDriver(colors: 256, dither: .none).qualityRungs.map(\.colors).prefix(3) == [256, 128, 64])
        #expect(KittyDriver(clock: .monotonic).qualityRungs.last?.fallback == true)
        #expect(KittyDriver(clock: .monotonic).qualityRungs.allSatisfy { $0.colors == nil })
        #expect(CellDriver(colorMode: .truecolor).qualityRungs == [OutputGovernor.Settings(), OutputGovernor.Settings(tolerance: 24),
                                                                  OutputGovernor.Settings(frameDivisor: 2, tolerance: 24)])
        // Finer cells give themselves up for half blocks; half blocks never fall back.
        #expect(CellDriver(symbols: .octant, colorMode: .truecolor).qualityRungs.last?.fallback == true)
        #expect(NullDriver().qualityRungs.isEmpty && NullDriver().logDetail == nil)
        #expect(VideoDrivers.fallback.name == "halfblock")
        #expect(VideoDrivers.fallback.make(TerminalCapabilities(), .init(), .monotonic).qualityRungs.allSatisfy { !$0.fallback })
    }
}

/// The governor on its own clock: frames fed as a render thread would, the time a
/// ``ManualTimeSource`` moved by 40 ms a frame (25 fps), each decision at its millisecond.
@Suite struct OutputGovernorClockTests {
    /// Feeds frames at 25 fps from the clock's time until `until` ms with the given load;
    /// returns each change with the millisecond it was made at.
    static func feed(_ g: inout OutputGovernor, _ clock: ManualTimeSource, until: Int64, load: Double) -> [(ms: Int64, level: Int)] {
        var changes: [(ms: Int64, level: Int)] = []
        while clock.milliseconds < until {
            let sample = OutputGovernor.Sample(frameInterval: 0.04, encodeSeconds: load * 0.04 * 0.6, writeSeconds: load * 0.04 * 0.4)
            if g.add(sample) != nil { changes.append((clock.milliseconds, g.level)) }
            clock.advance(milliseconds: 40)
        }
        return changes
    }

    @Test func stepsDownAfterTwelveSlowFramesAndBackUpAfterThreeSecondsOfHeadroom() {
        let clock = ManualTimeSource()
        var g = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: clock.source)
        // A load of 1 (over 0.9, not twice too much): judged at the 12th frame (440 ms); the
        // next step waits for the settling time and 12 more frames (960 ms).
        let down = Self.feed(&g, clock, until: 1000, load: 1)
        #expect(down.map(\.ms) == [440, 960] && down.map(\.level) == [1, 2], "\(down)")
        // Headroom from 1000 ms: seen at the first judgement (1480 ms: 0.5 s after the change,
        // 13 frames), a step up 3 s later (4480 ms); the next step up likewise (5000 + 3000).
        let up = Self.feed(&g, clock, until: 9000, load: 0.3)
        #expect(up.map(\.ms) == [4480, 8000] && up.map(\.level) == [1, 0], "\(up)")
        // Overloaded within 5 s of a step up: down as soon as the slow frames are most of the
        // last second (9480 ms: 13 of 26), and the hold before the next step up doubles.
        let again = Self.feed(&g, clock, until: 9500, load: 1)
        #expect(again.map(\.ms) == [9480] && again.map(\.level) == [1], "\(again)")
        let slow = Self.feed(&g, clock, until: 20_000, load: 0.3)
        // Headroom seen at 10000 ms (13 frames, 0.52 s after the change), up 6 s later.
        #expect(slow.map(\.ms) == [16_000] && slow.map(\.level) == [0], "\(slow)")
    }

    @Test func aTimedAddIsTheSameAsAnAddAtTheClocksTime() {
        let clock = ManualTimeSource()
        var timed = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: clock.source)
        var explicit = OutputGovernor(rungs: SixelDriver.qualityRungs(maxColors: 256), clock: .monotonic)
        for i in 0..<300 {
            let load = i < 100 ? 1.5 : i < 200 ? 0.2 : 0.95
            let sample = OutputGovernor.Sample(frameInterval: 0.04, encodeSeconds: load * 0.04, writeSeconds: 0)
            let a = timed.add(sample)
            let b = explicit.add(sample, now: clock.seconds)
            #expect(a == b, "frame \(i)")
            clock.advance(milliseconds: 40)
        }
    }
}
