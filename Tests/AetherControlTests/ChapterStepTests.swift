import AetherControl
import Testing

/// Which chapter a step lands on (issue 62, item 6): mpv's rule with its
/// `--chapter-seek-threshold`. Pure (unit tier): chapters at 0, 10, 20 and 30 s.
struct ChapterStepTests {
    static let starts = [0.0, 10, 20, 30]

    static func step(at now: Double, _ delta: Int, threshold: Double = 5) -> Int? {
        ChapterStep.target(starts: starts, now: now, delta: delta, threshold: threshold)
    }

    @Test func backWithinTheThresholdGoesToTheChapterBefore() {
        #expect(Self.step(at: 24.9, -1) == 1)
        #expect(Self.step(at: 25, -1) == 1, "at the threshold itself: still the chapter before")
        #expect(Self.step(at: 20, -1) == 1)
    }

    @Test func backFurtherInRestartsTheChapter() {
        #expect(Self.step(at: 25.1, -1) == 2)
        // mpv counts the restart as one of the steps: two back from deep in a chapter is one back.
        #expect(Self.step(at: 25.1, -2) == 1)
        #expect(Self.step(at: 21.5, -1, threshold: 1) == 2)
        #expect(Self.step(at: 20.5, -1, threshold: 1) == 1)
        #expect(Self.step(at: 20.5, -1, threshold: 0) == 2, "0: back always restarts once into a chapter")
    }

    @Test func forwardIgnoresTheThreshold() {
        #expect(Self.step(at: 25.1, 1) == 3)
        #expect(Self.step(at: 21, 2) == nil, "past the last chapter")
    }

    @Test func beforeTheFirstChapterAndWithoutChapters() {
        #expect(ChapterStep.target(starts: [5, 10], now: 2, delta: 1, threshold: 5) == 0)
        #expect(ChapterStep.target(starts: [5, 10], now: 2, delta: -1, threshold: 5) == nil)
        #expect(ChapterStep.target(starts: [], now: 2, delta: 1, threshold: 5) == nil)
        #expect(Self.step(at: 3, -1) == nil, "back from the first chapter's start: nothing before it")
        #expect(Self.step(at: 8, -1) == 0, "deep in the first chapter: restarts it")
    }
}
