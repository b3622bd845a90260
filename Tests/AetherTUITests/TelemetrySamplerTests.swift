@testable import AetherEngine
@testable import AetherTUI
import Testing

/// The once-a-second sample: the output's times per painted frame are added, the history grows.
struct TelemetrySamplerTests {
    @Test func renderAndWriteTimesArePerFramePaintedSinceTheLastSample() {
        var sampler = TelemetrySampler()
        #expect(sampler.nextDue == 1)
        var engine = TelemetrySnapshot()
        engine.observedFPS = 24
        var totals = VideoOutput.Totals()
        totals.framesPainted = 20
        totals.renderSeconds = 0.2
        totals.writeSeconds = 0.1
        let first = sampler.sample(engine, output: totals, terminalBytes: 50_000, now: 1)
        #expect(first.stages.renderMsPerFrame == 10 && first.stages.writeMsPerFrame == 5)
        #expect(sampler.latest == first && sampler.nextDue == 2)
        totals.framesPainted = 30
        totals.renderSeconds = 0.3
        totals.writeSeconds = 0.12
        let second = sampler.sample(engine, output: totals, terminalBytes: 80_000, now: 2)
        #expect(abs(second.stages.renderMsPerFrame - 10) < 1e-9 && abs(second.stages.writeMsPerFrame - 2) < 1e-9)
        // Nothing painted (paused): the engine's figures stand as they are.
        engine.stages.renderMsPerFrame = 0
        let paused = sampler.sample(engine, output: totals, terminalBytes: 80_000, now: 3)
        #expect(paused.stages.renderMsPerFrame == 0)
        #expect(sampler.history.fps == [24, 24, 24])
        #expect(sampler.history.terminalBytes == [50_000, 30_000, 0])
    }
}
