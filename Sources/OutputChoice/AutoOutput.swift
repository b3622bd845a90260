#if canImport(Glibc)
import Glibc
#endif
import AetherBase
import TerminalGraphics

/// `--vo=auto` for a host (the TUI, `caps`): the candidates the terminal can show, their figures
/// (remembered for this terminal, else measured by the ``ThroughputTrial`` and remembered),
/// and the choice (``OutputChoice``). A terminal that answered nothing gets the capability
/// order (nothing can be measured on it; inside tmux, the terminal outside must have answered
/// through the passthrough); one with a single candidate needs no trial.
public struct AutoOutput: Sendable {
    /// The candidate drawn with.
    public var candidate: OutputCandidate
    /// What each candidate showed (empty when nothing was weighed).
    public var figures: [OutputFigure]
    /// Where the figures came from: measured now, remembered, or none (the capability order).
    public var source: Source
    /// Keys typed during the trial (``ThroughputTrial/stray``), for the host's input.
    public var strayInput: [UInt8] = []
    /// Where the figures are remembered, and this terminal's key there.
    public var memory: TerminalMemory?
    public var key = ""
    public enum Source: String, Sendable { case measured, remembered, capabilities = "capability order" }

    /// The driver options that draw the chosen way.
    public func options(_ base: VideoDrivers.Options) -> VideoDrivers.Options { candidate.options(base) }

    /// - Parameters:
    ///   - placement: where the host's layout puts a driver's picture (its size is what is measured).
    ///   - sourceFPS: the source's frame rate (24 when it has none).
    ///   - memory: terminals.json (nil: neither read nor written); `remeasure` ignores what it holds.
    public static func choose<T: ProbeTransport>(
        capabilities caps: TerminalCapabilities, options: VideoDrivers.Options, sourceFPS: Double,
        placement: (any VideoDriver) -> Placement, transport: inout T, clock: TimeSource,
        memory: TerminalMemory?, key: String, remeasure: Bool = false, trial: ThroughputTrial = ThroughputTrial()
    ) -> AutoOutput? {
        let candidates = OutputCandidate.all(for: caps, options: options)
        guard let first = candidates.first else { return nil }
        // Inside tmux the trial's queries go to the terminal outside: one that did not answer the
        // probe's through the passthrough would leave every frame unanswered.
        let measurable = caps.probe.answered && (!caps.tmux.allowsPassthrough || !caps.tmux.outerDeviceAttributes.isEmpty)
        guard measurable, candidates.count > 1 else {
            return AutoOutput(candidate: first, figures: [], source: .capabilities)
        }
        let remembered = remeasure ? nil : memory?.entry(for: key)
        var figures: [OutputFigure]
        var source = Source.remembered, typed: [UInt8] = []
        if let remembered, candidates.allSatisfy({ c in remembered.figures.contains { $0.label == c.label } }) {
            // Rescaled to this layout's pictures.
            figures = candidates.compactMap { c in
                guard let f = remembered.figures.first(where: { $0.label == c.label }), let entry = VideoDrivers.entry(named: c.driver) else { return nil }
                let driver = entry.make(caps, c.options(options), clock)
                var figure = f.scaled(toPixels: placement(driver).pictureSize.area)
                figure.floor = OutputFigure.floor(of: driver)
                return figure
            }
        } else {
            var trial = trial
            figures = trial.measure(candidates, capabilities: caps, options: options, sourceFPS: sourceFPS, placement: placement,
                                    transport: &transport, clock: clock)
            source = .measured
            typed = trial.stray
        }
        guard let chosen = OutputChoice.choose(figures, sourceFPS: sourceFPS, keeping: remembered?.choice),
              let candidate = OutputCandidate(label: chosen.label) else {
            return AutoOutput(candidate: first, figures: figures, source: .capabilities, strayInput: typed)
        }
        if source == .measured { memory?.save(.init(figures: figures, choice: chosen.label), for: key) }
        return AutoOutput(candidate: candidate, figures: figures, source: source, strayInput: typed, memory: memory, key: key)
    }

    /// The governor gave the driver in use up (it could not keep up even at its floor): `live`
    /// (the milliseconds a frame of `pixels` took when it last stepped down, measured on the
    /// frames played) becomes the figure of every way of that driver (a terminal slow to take
    /// kitty images is slow both ways), the best output is chosen by the same rule, and the
    /// terminal's entry says so, so the next start does not pick the driver again. Nil when no
    /// other output was weighed or none keeps up (the host falls back to half-block, as without
    /// figures).
    public func givenUp(live milliseconds: Double, pixels: Int, sourceFPS: Double) -> AutoOutput? {
        guard figures.contains(where: { $0.label == candidate.label }), milliseconds.isFinite, milliseconds > 0, pixels > 0 else { return nil }
        let sameDriver = { (f: OutputFigure) in OutputCandidate(label: f.label)?.driver == candidate.driver }
        let figures = figures.map { sameDriver($0) ? OutputFigure(label: $0.label, pixels: pixels, milliseconds: milliseconds) : $0 }
        let others = figures.filter { !sameDriver($0) }
        guard let chosen = OutputChoice.choose(others, sourceFPS: sourceFPS), chosen.keepsUp(sourceFPS: sourceFPS),
              let next = OutputCandidate(label: chosen.label) else { return nil }
        memory?.save(.init(figures: figures, choice: next.label), for: key)
        return AutoOutput(candidate: next, figures: figures, source: .measured, memory: memory, key: key)
    }

    /// ``choose(capabilities:options:sourceFPS:placement:transport:clock:memory:key:remeasure:trial:)``
    /// on the terminal at `input`/`output` (raw for the trial's length, as for the capability
    /// probe), timed by the monotonic clock (the terminal's real speed is what is measured),
    /// remembered in `environment`'s ``TerminalMemory/standard(environment:)``.
    public static func choose(capabilities caps: TerminalCapabilities, options: VideoDrivers.Options, sourceFPS: Double,
                              placement: (any VideoDriver) -> Placement, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                              environment: [String: String], remeasure: Bool = false, clock: TimeSource) -> AutoOutput? {
        var transport = FileDescriptorTransport(input: input, output: output)
        defer { transport.restore() }
        return choose(capabilities: caps, options: options, sourceFPS: sourceFPS, placement: placement, transport: &transport,
                      clock: clock, memory: TerminalMemory.standard(environment: environment),
                      key: TerminalMemory.key(for: caps, environment: environment), remeasure: remeasure)
    }
}

extension PixelSize {
    /// Width × height.
    var area: Int { width * height }
}
