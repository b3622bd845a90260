import ArgumentParser

/// `aether-bench`: reproducible performance measurements, one subcommand per subsystem.
@main
struct AetherBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aether-bench",
        abstract: "Benchmarks for aether-tui's subsystems, with peers where installed.",
        subcommands: [GraphicsBenchmark.self, CellsBenchmark.self, ScalingBenchmark.self, ChoiceBenchmark.self, EngineBenchmark.self, FramesBenchmark.self, SubtitlesBenchmark.self, NetworkBenchmark.self, DecodePassCommand.self])
}
