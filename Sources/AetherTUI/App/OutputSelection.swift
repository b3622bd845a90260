import AetherEngine
import OutputChoice
import TerminalGraphics

extension TUIApp {
    /// Sets the video output (an explicit `--vo` as named; `auto` for a video by measurement, ``AutoOutput``: remembered for
    /// this terminal, else the trial on the alternate screen before ours, at this picture and layout); the keys typed meanwhile.
    func chooseDriver(environment: [String: String]) -> [UInt8] {
        guard options.videoOutput == .auto, let video = player.mediaInfo?.primaryVideo else {
            driver = VideoDrivers.make(options.videoOutput, capabilities: capabilities, options: options.drivers) ?? NullDriver()
            return []
        }
        let fps = video.frameRate ?? 24, auto = AutoOutput.choose(capabilities: capabilities, options: options.drivers, sourceFPS: fps,
                                     placement: Layout.placement(on: capabilities, displayAspect: video.uprightAspect, showTelemetry: view.showTelemetry),
                                     environment: environment)
        AppLog.write("tui", "--vo=auto: \(auto?.candidate.label ?? "-") (\(auto?.source.rawValue ?? "-"))\n"
                     + (auto.map { OutputChoice.lines($0.figures, sourceFPS: fps, chosen: $0.candidate.label) } ?? []).joined(separator: "\n"))
        autoOutput = auto
        driver = VideoDrivers.make(auto?.candidate.driver ?? "auto", capabilities: capabilities, options: auto?.options(options.drivers) ?? options.drivers) ?? NullDriver()
        return auto?.strayInput ?? []
    }
}
