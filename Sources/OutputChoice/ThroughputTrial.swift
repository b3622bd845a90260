import AetherBase
import TerminalGraphics

/// The throughput probe behind `--vo=auto`: each candidate draws a few frames at the layout's
/// size on the alternate screen, each followed by DA1 (`CSI c`), which every terminal answers
/// in order, so its answer means the frame was absorbed. A frame's time runs from the start
/// of its encoding to that answer; the trial takes the median of the frames after the first
/// (which pays for setting up). Time comes from `now` (milliseconds), so the rule is tested
/// against a terminal simulated at a given speed.
///
/// Budget: a frame is waited for only as long as a frame that still keeps up could take
/// (``OutputFigure/slowestKeepingUp(sourceFPS:floor:)``: 500 ms for sixel and kitty at 24 fps,
/// 125 ms for cells; the first, which pays for setting up, twice that; never over
/// ``longestWait``). A frame not answered by then ends the candidate; the terminal is then
/// waited for up to twice ``longestWait`` more (not counted) so the frame's real time is its
/// figure (``unanswered`` when it never answers): a terminal too slow for every output gets the
/// fastest of them. The alternate screen is left as it was found: every picture taken down, the
/// screen erased.
///
/// Inside tmux the queries go through the passthrough, which tmux drops while a redraw of the
/// pane is pending (``AttributesRoundTrip/settle(_:until:interval:now:)``): each candidate
/// starts once the terminal outside answers again, and a frame whose answer does not come is
/// drawn once more after that (a dropped answer is not a slow terminal).
public struct ThroughputTrial {
    /// Frames per candidate (the first is not counted).
    public var frames = 3
    /// The longest a frame is waited for, whatever the source's frame rate.
    public var longestWait = 1000.0
    /// Keys typed while the trial read the terminal's answers, in order
    /// (``AttributesRoundTrip/strayLimit`` bytes at most): the host hands them to its input.
    public var stray: [UInt8] { answers.stray }
    /// The frames' DA1 queries: a late answer is the earlier frame's, never the next one's.
    private var answers = AttributesRoundTrip()
    /// A frame's figure when the terminal did not answer in time: no output that slow keeps up.
    public static let unanswered = 10_000.0

    public init() {}

    /// The picture instance the trial draws as (``VideoDrivers/Options/instance``).
    public static let instance = 15
    static let enter: [UInt8] = Array("\u{1B}[?1049h\u{1B}[2J".utf8)
    static let leave: [UInt8] = Array("\u{1B}[0m\u{1B}[2J\u{1B}[?1049l".utf8)

    /// Measures `candidates` on the terminal behind `transport` with `caps`, each drawn where
    /// `placement` puts its driver (the host's layout), for a source of `sourceFPS`.
    public mutating func measure<T: ProbeTransport>(
        _ candidates: [OutputCandidate], capabilities caps: TerminalCapabilities, options: VideoDrivers.Options, sourceFPS: Double,
        placement: (any VideoDriver) -> Placement, transport: inout T, clock: TimeSource
    ) -> [OutputFigure] {
        let now = { clock.seconds * 1000 }
        var figures: [OutputFigure] = []
        do throws(SystemCallError) {
            try transport.send(Self.enter)
            defer { try? transport.send(Self.leave) }
            for candidate in candidates {
                guard let entry = VideoDrivers.entry(named: candidate.driver) else { continue }
                var trialOptions = candidate.options(options)
                trialOptions.instance = Self.instance   // an image id of its own (kitty): never the video's
                let driver = entry.make(caps, trialOptions, clock)
                let spot = placement(driver)
                guard !spot.isEmpty else { continue }
                // A terminal still taking an earlier candidate's frames: wait for it (not counted).
                // Inside tmux the clear before (and the trial's start) makes tmux redraw the pane,
                // and it drops what passes through meanwhile: settle first.
                if caps.tmux.allowsPassthrough {
                    _ = try answers.settle(&transport, until: now() + 2 * longestWait, now: now)
                } else {
                    _ = try answers.await(&transport, until: now() + 2 * longestWait, now: now)
                }
                let floor = OutputFigure.floor(of: driver)
                let wait = min(longestWait, OutputFigure.slowestKeepingUp(sourceFPS: sourceFPS, floor: floor))
                let mask = CellMask(columns: caps.window.columns ?? 80, rows: caps.window.rows ?? 24)
                var times: [Double] = []
                let buffer = ByteBuffer(capacity: 1 << 20)
                var redone = false
                var k = 0
                while k < frames {
                    defer { k += 1 }
                    // A frame drawn again is a new picture (a driver skips one unchanged).
                    guard let image = Self.picture(spot.pictureSize, frame: redone ? k + frames : k) else { break }
                    let t0 = now()
                    buffer.removeAll()
                    guard (try? driver.render(image, placement: spot, mask: mask, into: buffer)) != nil else { break }
                    // Inside tmux the outer terminal, which draws the pictures, is asked.
                    buffer.append(AttributesRoundTrip.query(throughTmux: caps.tmux.allowsPassthrough))
                    try transport.send(buffer.bytes)
                    answers.sent()
                    let answered = try answers.await(&transport, until: t0 + (k == 0 ? 2 * wait : wait), now: now)
                    if answered {
                        times.append(now() - t0)
                        continue
                    }
                    // Inside tmux the answer may have been dropped, not late: once the terminal
                    // answers again, the frame is drawn once more (once a candidate).
                    if caps.tmux.allowsPassthrough, !redone {
                        redone = true
                        if try answers.settle(&transport, until: now() + 2 * longestWait, now: now) {
                            k -= 1
                            continue
                        }
                    }
                    // Too slow to keep up: the candidate ends, but the terminal is waited for as
                    // the next candidate would (uncounted), so the frame's real time is known (a
                    // terminal too slow for everything gets the fastest, not the first).
                    let late = try answers.await(&transport, until: now() + 2 * longestWait, now: now)
                    times.append(late ? now() - t0 : Self.unanswered)
                    break
                }
                buffer.removeAll()
                driver.teardown(into: buffer)
                buffer.append(Escape.resetAttributes + Array("\u{1B}[2J".utf8))
                try transport.send(buffer.bytes)
                let counted = times.count > 1 ? Array(times.dropFirst()).sorted() : times
                guard let median = counted.isEmpty ? nil : counted[counted.count / 2] else { continue }
                figures.append(OutputFigure(label: candidate.label, pixels: spot.pictureSize.area, milliseconds: median, floor: floor))
            }
        } catch {
            return figures
        }
        return figures
    }

    /// A picture with a film's kind of detail (gradients under fine grain), different each
    /// frame so no driver can skip one as unchanged.
    static func picture(_ size: PixelSize, frame: Int) -> PixelImage? {
        let w = max(1, size.width), h = max(1, size.height)
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        var seed = UInt32(truncatingIfNeeded: 0x9E37_79B9 &* UInt32(frame + 1))
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let grain = Int(seed >> 27) - 16
                let o = (y * w + x) * 3
                pixels[o] = UInt8(clamping: x * 255 / w + grain)
                pixels[o + 1] = UInt8(clamping: y * 255 / h + grain)
                pixels[o + 2] = UInt8(clamping: (x + y + frame * 7) % 256 / 2 + 64 + grain)
            }
        }
        return try? PixelImage(width: w, height: h, format: .rgb24, pixels: pixels)
    }
}
