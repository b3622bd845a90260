import AetherBase
import AetherMedia
import OutputChoice
import TerminalGraphics

/// What the terminal can do and how the picture is drawn, decided before the screen comes up: the
/// capability probe's report, then the driver `--vo` names, or for `auto` and a video the one
/// measured (``AutoOutput``: remembered for this terminal, else the trial on the alternate screen
/// before ours, at this picture and layout). A value the host starts from; nothing here draws.
struct OutputSetup {
    var capabilities: TerminalCapabilities
    var driver: any VideoDriver
    /// `--vo=auto`'s figures and choice (nil: an output named, or nothing weighed).
    var autoOutput: AutoOutput?
    /// Bytes typed while the probe and the trial had the terminal: read before anything else.
    var typed: [UInt8]

    static func choose(report: CapabilityProbe.Report, options: TUIOptions, video: VideoStreamInfo?, showTelemetry: Bool,
                       environment: [String: String], clock: TimeSource) -> OutputSetup {
        let caps = report.capabilities
        guard options.output.choice == .auto, let video else {
            return OutputSetup(capabilities: caps, driver: VideoDrivers.make(options.output.choice, capabilities: caps, options: options.output.drivers, clock: clock) ?? NullDriver(),
                               autoOutput: nil, typed: report.strayInput)
        }
        let fps = video.frameRate ?? 24, auto = AutoOutput.choose(capabilities: caps, options: options.output.drivers, sourceFPS: fps,
                                     placement: Layout.placement(on: caps, displayAspect: video.uprightAspect, showTelemetry: showTelemetry),
                                     environment: environment, clock: clock)
        AppLog.write("tui", "--vo=auto: \(auto?.candidate.label ?? "-") (\(auto?.source.rawValue ?? "-"))\n"
                     + (auto.map { OutputChoice.lines($0.figures, sourceFPS: fps, chosen: $0.candidate.label) } ?? []).joined(separator: "\n"))
        let driver = VideoDrivers.make(auto?.candidate.driver ?? "auto", capabilities: caps, options: auto?.options(options.output.drivers) ?? options.output.drivers, clock: clock)
        return OutputSetup(capabilities: caps, driver: driver ?? NullDriver(), autoOutput: auto, typed: report.strayInput + (auto?.strayInput ?? []))
    }
}
