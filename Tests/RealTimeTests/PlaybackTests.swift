import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Synchronization
import Testing

/// Real playback through ALSA's `pulse` device into a PulseAudio null sink, which paces in real
/// time. Serialized: these measure wall-clock behaviour and must not compete with each other.
@Suite(.serialized) struct PlaybackTests {
    init() {
        #expect(TestEnvironment.requirePulse(), "PulseAudio null sink did not start")
    }

    func options(_ configure: (inout PlayerOptions) -> Void = { _ in }) -> PlayerOptions {
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .alsa(device: "pulse")
        configure(&o)
        return o
    }

    /// A player loaded with `fixture` (paused, as a load leaves it) and the pts of every frame it
    /// shows from then on.
    func recordingPlayer(_ fixture: String, _ configure: (inout PlayerOptions) -> Void = { _ in }) throws
        -> (player: Player, shown: Guarded<[Double]>) {
        let player = Player(), shown = Guarded<[Double]>([])
        try player.load(url: TestEnvironment.fixture(fixture), options: options(configure))
        player.setFrameHandler { f in shown.withLock { $0.append(f.pts) } }
        return (player, shown)
    }

    @Test func realTimeAtNormalSpeed() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options { $0.length = 10 })
        player.play()
        // A local file is read a second ahead (``ReadAhead``), not to the queues' caps: at
        // 24 fps that is about 24 video packets, whatever the 600 the queue could hold.
        #expect(waitUntil(10) { player.currentTime >= 3 })
        let midway = player.telemetry(advance: false)
        let videoPackets = try #require(midway.buffer.queues.first { $0.name == "video packets" })
        #expect(videoPackets.items <= 40, "\(videoPackets.items) video packets queued at \(midway.position) s")
        #expect(midway.buffer.seconds <= 1.3, "demuxed \(midway.buffer.seconds) s ahead")
        #expect(waitUntil(20) { player.state == .ended })
        let t = player.telemetry()
        let wall = try #require(player.playingWallSeconds)
        #expect(abs(wall - 10) / 10 <= 0.02, "played 10 s of media in \(wall) s of wall time")
        #expect(t.sync.clockSource == "audio")
        #expect(t.frames.dropped == 0, "dropped \(t.frames.droppedLate) late, \(t.frames.droppedEarly) early")
        #expect(t.frames.presented == 240)
        let gaps = player.gapStatistics
        #expect(gaps.p95 <= 0.020, "A/V gap p95 \(gaps.p95 * 1000) ms")
        player.stop()
    }

    /// A host that paints on its own thread (a slow terminal): the sound, and with it the
    /// clock, of a seek starts once the host reports the seek's first picture on screen, not
    /// while it is still being drawn; a host that never reports holds it at most half a second.
    @Test(arguments: [true, false])
    func theSoundStartsWithTheFirstPictureOnScreen(reports: Bool) throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options { $0.length = 4 })
        #expect(waitUntil(5) { player.state == .paused })
        let firstFrameAt = Guarded<Double?>(nil)
        let reportedAt = Guarded<Double?>(nil)
        player.setFrameSink(TestSink(reportsDisplay: true) { f in
            let first = firstFrameAt.withLock { t -> Bool in
                guard t == nil else { return false }
                t = MonotonicClock.seconds()
                return true
            }
            guard reports else { return }
            let shown = FrameReport(frame: f.id, outcome: .displayed(latency: nil))
            guard first else { player.report(shown); return }
            // The first picture takes 300 ms to draw.
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.3)   // measurement window: the slow first draw
                reportedAt.withLock { $0 = MonotonicClock.seconds() }
                player.report(shown)
            }
        })
        player.seek(to: 0, mode: .exact)
        player.play()
        #expect(waitUntil(5) { player.playingWallSeconds != nil })
        let armedAt = MonotonicClock.seconds() - (player.playingWallSeconds ?? 0)
        let shown = try #require(firstFrameAt.withLock { $0 })
        if reports {
            let reported = try #require(reportedAt.withLock { $0 })
            #expect(armedAt >= reported - 0.002, "the clock ran \((reported - armedAt) * 1000) ms before the picture was up")
        } else {
            #expect(armedAt - shown >= PlaybackSession.firstPictureWaitSeconds - 0.05)
            #expect(armedAt - shown < 1.5, "waited \(armedAt - shown) s for a picture nobody reported")
        }
        #expect(waitUntil(10) { player.state == .ended })
        player.stop()
    }

    /// `stop()` joins every thread within a second whatever the session is doing: playing,
    /// paused, mid-seek, after the end, or before the audio device ever started.
    @Test func stopReturnsPromptlyInEveryState() throws {
        let states: [(String, (Player) -> Void)] = [
            ("playing", { p in p.play(); _ = waitUntil(5) { p.state == .playing && p.currentTime > 0.2 } }),
            ("paused", { p in p.play(); _ = waitUntil(5) { p.state == .playing && p.currentTime > 0.1 }; p.pause() }),
            ("seeking", { $0.play(); $0.seek(to: 6); $0.seek(to: 2) }),
            ("loaded", { _ in }),
            ("ended", { p in p.play(); _ = waitUntil(5) { p.state == .ended } }),
        ]
        for (name, setUp) in states {
            let player = Player()
            try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options { $0.length = name == "ended" ? 1 : nil })
            setUp(player)
            let start = MonotonicTime.now()
            player.stop()
            let took = MonotonicTime.now() - start
            #expect(took < 1.2, "stop() while \(name) took \(took) s")
            #expect(player.state == .idle)
        }
    }

    /// Deinterlaced frames keep their times: filters rescale `pts` to their own time base but
    /// copy the input's best-effort timestamp, so reading the wrong one halves every time (the
    /// picture then fell behind the sound and frames were dropped).
    @Test func deinterlacedFramesKeepTheirTimes() throws {
        let player = Player()
        let times = Guarded<[Double]>([])
        try player.load(url: TestEnvironment.fixture("mpeg2-interlaced-mp2.ts"), options: options { $0.audio.output = .null; $0.length = 3 })
        player.setFrameHandler { frame in times.withLock { $0.append(frame.pts) } }
        player.play()
        #expect(waitUntil(10) { player.state == .ended })
        let t = player.telemetry()
        #expect(t.video.deinterlacing)
        let fps = try #require(player.mediaInfo?.primaryVideo?.frameRate)
        let shown = times.withLock { $0 }
        try #require(shown.count > 1)
        // Every frame is shown or counted as dropped. A stall of the machine may drop a few (a
        // CI run dropped 5 early); halved times dropped most of them.
        #expect(abs(Double(shown.count + t.frames.dropped) - 3 * fps) <= 2,
                "\(shown.count) frames shown and \(t.frames.dropped) dropped for 3 s at \(fps) fps")
        #expect(Double(t.frames.dropped) <= 0.2 * 3 * fps, "dropped \(t.frames.droppedEarly) early, \(t.frames.droppedLate) late")
        // The times are on the source's grid, a whole number of frame intervals apart (halved
        // times are half an interval apart).
        let steps = zip(shown.dropFirst(), shown).map { ($0 - $1) * fps }
        #expect(steps.allSatisfy { $0 > 0.5 && abs($0 - $0.rounded()) < 0.002 * fps }, "frame steps in intervals \(steps.prefix(8))")
        player.stop()
    }

    /// A caller preempted right after asking for a seek (the demux thread performs it and queues
    /// the rest of the short file, end items included, meanwhile) must not lose those packets.
    @Test func aSeekWhoseCallerStallsStillEnds() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options { $0.audio.output = .null })
        player.play()
        // `player.seek(to: 10.5)` in two halves with the caller stalled between them.
        let session = try #require(player.current)
        #expect(session.recordSeek(to: 10.5, mode: .exact))
        Thread.sleep(forTimeInterval: 0.3)   // measurement window: the caller stalls
        session.wakeForSeek()
        #expect(waitUntil(8) { player.state == .ended }, "stuck in \(player.state) at \(player.currentTime) s")
        player.stop()
    }

    /// Seeks in quick succession near the end of a short file (the demuxer reads all of it at
    /// once): whatever interleaving the threads take, the end items survive and playback ends.
    @Test func rapidSeeksNearTheEndStillEnd() throws {
        for round in 0..<5 {
            let player = Player()
            try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options { $0.audio.output = .null })
            player.play()
            for i in 0..<40 {
                player.seek(to: 10.5 + Double(i % 7) * 0.2, mode: i % 2 == 0 ? .exact : .keyframe)
                if i % 5 == 0 { Thread.sleep(forTimeInterval: 0.002) }   // measurement window: the threads interleave
            }
            #expect(waitUntil(10) { player.state == .ended }, "round \(round): stuck in \(player.state) at \(player.currentTime) s")
            player.stop()
        }
    }

    @Test func doubleSpeedTakesHalfTheTime() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options { $0.length = 8; $0.playing.rate = 2 })
        player.play()
        #expect(waitUntil(20) { player.state == .ended })
        let wall = try #require(player.playingWallSeconds)
        #expect(abs(wall - 4) / 4 <= 0.05, "8 s of media at 2× took \(wall) s")
        #expect(player.telemetry().sync.clockSource == "audio")
        player.stop()
    }

    /// A music file with an attached picture, which the unit tier shows plays as audio alone
    /// (CoverArtTests.anAttachedPictureIsNotAVideoStream), keeps real time: its 2 s take 2 s.
    @Test func anAttachedPictureFilePlaysInRealTime() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("music-cover.flac"), options: options())
        player.play()
        #expect(waitUntil(10) { player.state == .ended }, "state \(player.state) at \(player.currentTime) s")
        let wall = try #require(player.playingWallSeconds)
        #expect(abs(wall - 2) <= 0.25, "2 s of audio played in \(wall) s")
        #expect(player.telemetry().sync.clockSource == "audio")
        player.stop()
    }

    @Test func pauseFreezesPositionAndResumeContinues() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options())
        player.play()
        #expect(waitUntil(5) { player.currentTime > 1.0 })
        player.pause()
        // A frame already on its way may still land: until two looks 20 ms apart agree.
        var last = -1.0
        _ = waitUntil(2, interval: 0.02) {
            let now = player.currentTime
            defer { last = now }
            return player.state == .paused && now == last
        }
        let paused = player.currentTime
        let presented = player.telemetry().frames.presented
        Thread.sleep(forTimeInterval: 2)   // measurement window: paused, nothing may move
        #expect(abs(player.currentTime - paused) < 0.001, "position moved while paused")
        #expect(player.telemetry().frames.presented == presented)
        #expect(player.state == .paused)
        player.play()
        Thread.sleep(forTimeInterval: 1)   // measurement window: 1 s of playing
        let advanced = player.currentTime - paused
        #expect(advanced > 0.8 && advanced < 1.2, "advanced \(advanced) s in 1 s after resume")
        #expect(player.state == .playing)
        player.stop()
    }

    /// The fixture has keyframes every second at 24 fps.
    @Test func exactAndKeyframeSeeks() throws {
        let (player, shown) = try recordingPlayer("h264-720p.mkv")
        #expect(waitUntil(5) { player.state == .paused })

        shown.withLock { $0.removeAll() }
        player.seek(to: 2.53, mode: .exact)
        #expect(waitUntil(5) { player.state == .paused && !shown.withLock { $0.isEmpty } })
        let exactFirst: Double = shown.withLock { $0.first } ?? -1
        #expect(abs(exactFirst - 60.0 / 24) < 0.001, "exact seek showed \(exactFirst)")

        shown.withLock { $0.removeAll() }
        player.seek(to: 7.6, mode: .keyframe)
        #expect(waitUntil(5) { player.state == .paused && !shown.withLock { $0.isEmpty } })
        let keyFirst: Double = shown.withLock { $0.first } ?? -1
        #expect(abs(keyFirst - 7.0) < 0.001, "keyframe seek showed \(keyFirst)")
        #expect(abs(player.currentTime - 7.0) < 0.001)
        // Paused after a forward seek, the demuxer reads a second past the target (7.6 s; the
        // picture landed on the keyframe before it) and stops.
        #expect(waitUntil(5) { player.telemetry(advance: false).buffer.seconds >= 0.9 })
        let held = player.telemetry(advance: false)
        let heldPackets = held.buffer.queues.first { $0.name == "video packets" }?.items ?? -1
        #expect(heldPackets >= 0 && heldPackets <= 40 && held.buffer.seconds <= 1.3 + (7.6 - 7.0),
                "\(heldPackets) video packets, \(held.buffer.seconds) s ahead")

        // Playing on after an exact seek continues from the target, in order.
        shown.withLock { $0.removeAll() }
        player.seek(to: 4.0, mode: .exact)
        player.play()
        #expect(waitUntil(5) { shown.withLock { $0.count } >= 12 })
        let frames = shown.withLock { $0 }
        #expect(abs(frames[0] - 4.0) < 0.001)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 > $0 }, "frames out of order: \(frames)")
        player.stop()
    }

    /// `--audio-delay`: each frame is shown when the audio clock reaches its pts minus the delay,
    /// so the picture runs that much ahead of the sound (and the sound that much behind it).
    @Test(arguments: [0.0, 0.3, -0.2])
    func audioDelayShiftsThePictureAgainstTheAudioClock(delay: Double) throws {
        let player = Player()
        let leads = Guarded<[Double]>([])
        try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: options { $0.start = 2; $0.playing.audioDelay = delay })
        player.setFrameHandler { [player] f in
            guard f.paced else { return }
            leads.withLock { $0.append(f.pts - player.currentTime) }
        }
        #expect(player.audioDelay == delay)
        player.play()
        #expect(waitUntil(8) { leads.withLock { $0.count } >= 60 })
        player.stop()
        let sorted = leads.withLock { $0 }.dropFirst(10).sorted()
        let median = sorted[sorted.count / 2]
        #expect(abs(median - delay) < 0.03, "frames shown \(median) s ahead of the audio clock, delay \(delay)")
    }

    @Test func subtitleDelayShiftsTheCues() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"),
                        options: options { $0.subtitles.track = 0 })
        defer { player.stop() }
        #expect(waitUntil(5) { player.state == .paused })
        #expect(waitUntil(3) { !(player.subtitleStore?.cues(track: 0).isEmpty ?? true) })
        let cue = try #require(player.subtitleStore?.cues(track: 0).first)
        let inside = (cue.start + cue.end) / 2
        #expect(!player.subtitleCues(at: inside).isEmpty)
        player.setSubtitleDelay(cue.end - cue.start + 1)
        #expect(player.subtitleCues(at: inside).isEmpty, "shown later by more than its length")
        #expect(!player.subtitleCues(at: inside + cue.end - cue.start + 1).isEmpty)
        player.setSubtitleDelay(.nan)
        #expect(player.subtitleDelay == cue.end - cue.start + 1, "a NaN delay is ignored")
    }

    @Test func stepShowsNextFrameWhilePaused() throws {
        let (player, shown) = try recordingPlayer("h264-720p.mkv") { $0.start = 3 }
        #expect(waitUntil(5) { player.state == .paused })
        // The paused picture shown, and nothing more on its way: no new frame for 50 ms.
        var count = -1
        _ = waitUntil(2, interval: 0.05) {
            let now = shown.withLock { $0.count }
            defer { count = now }
            return now > 0 && now == count
        }
        shown.withLock { $0.removeAll() }
        player.step()
        #expect(waitUntil(2) { shown.withLock { $0.count } == 1 })
        player.step()
        #expect(waitUntil(2) { shown.withLock { $0.count } == 2 })
        let stepped: [Double] = shown.withLock { $0 }.map { ($0 * 24).rounded() }
        #expect(stepped == [73, 74])
        #expect(player.isPaused)
        player.stop()
    }

    /// Track 0 is a 440 Hz tone, track 1 a 660 Hz tone: what the sink plays proves the switch.
    @Test func audioTrackSwitchMidPlayback() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: options())
        player.play()
        #expect(waitUntil(5) { player.currentTime > 0.6 })
        let a = try SinkRecorder().stop(after: 4800 + 24000 + 2400)
        player.selectAudioTrack(1)
        #expect(waitUntil(3) { player.state == .playing && player.activeAudioTrack == 1 })
        Thread.sleep(forTimeInterval: 0.4)   // measurement window: the old track's sound already in the sink plays out
        let b = try SinkRecorder().stop(after: 4800 + 24000 + 2400)
        #expect(player.state == .playing || player.state == .ended)
        #expect(player.telemetry().frames.presented > 40)
        // A recorder that got less than the window (parec starting late on a loaded machine)
        // fails the test rather than crashing the run.
        try #require(a.left.count >= 4800 + 24000 && b.left.count >= 4800 + 24000,
                     "recorded \(a.left.count) and \(b.left.count) samples, expected 0.6 s each")
        let fa = Signal.dominantFrequency(a.left[4800...].prefix(24000))
        let fb = Signal.dominantFrequency(b.left[4800...].prefix(24000))
        #expect(abs(fa - 440) <= 2, "before the switch the sink played \(fa) Hz")
        #expect(abs(fb - 660) <= 2, "after the switch the sink played \(fb) Hz")
        player.stop()
    }

    /// 1 kHz at -6 dBFS peak (-9.03 dBFS RMS) must come out of the sink as exactly that.
    @Test func sineComesOutAtTheRightFrequencyAndLevel() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("sine-1k.mkv"), options: options())
        let recorder = try SinkRecorder()
        player.play()
        #expect(waitUntil(10) { player.currentTime > 3.5 })
        let rec = recorder.stop()
        player.stop()
        // Analyse 2 s from the middle of what was recorded.
        let start = max(0, rec.left.count - 48000 * 5 / 2)
        let left = rec.left[start..<(start + 96000)]
        let right = rec.right[start..<(start + 96000)]
        #expect(abs(Signal.dominantFrequency(left) - 1000) <= 1)
        #expect(abs(Signal.rmsDBFS(left) - -9.03) < 0.5, "left RMS \(Signal.rmsDBFS(left)) dBFS")
        #expect(abs(Signal.rmsDBFS(right) - -9.03) < 0.5, "right RMS \(Signal.rmsDBFS(right)) dBFS")
    }

    /// FL 300, FR 500, FC 700, LFE 90, BL 1100, BR 1300 Hz: after the stereo downmix every tone is
    /// still heard, on the side it belongs to (centre and LFE on both).
    @Test func surroundDownmixKeepsEveryTone() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("tones-51.mkv"), options: options())
        let recorder = try SinkRecorder()
        player.play()
        #expect(waitUntil(10) { player.currentTime > 3.0 })
        let rec = recorder.stop()
        player.stop()
        let start = max(0, rec.left.count - 48000 * 2)
        let l = rec.left[start..<(start + 48000)]
        let r = rec.right[start..<(start + 48000)]
        let floor = 0.01   // -40 dBFS; each tone is at -18 dBFS before the mix
        for (f, inLeft, inRight) in [(300.0, true, false), (500, false, true), (700, true, true), (90, true, true),
                                     (1100, true, false), (1300, false, true)] {
            let al = Signal.amplitude(l, frequency: f), ar = Signal.amplitude(r, frequency: f)
            #expect((al > floor) == inLeft, "\(f) Hz left amplitude \(al)")
            #expect((ar > floor) == inRight, "\(f) Hz right amplitude \(ar)")
        }
    }
}

/// Decoding is bit-exact: the same frames, hashed the same way, as `ffmpeg -f framemd5`.
@Suite struct BitExactDecodeTests {
    static let files = ["h264-aac-2audio-srt-ass.mkv", "vp9-opus.webm", "av1-opus.webm"]

    @Test(arguments: files)
    func frameHashesMatchFFmpeg(file: String) throws {
        let path = TestEnvironment.fixture(file)
        let ours = try FrameHasher.hashes(url: path, clock: .monotonic)
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"], timeout: 60)
        #expect(r.status == 0)
        let theirs = r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
        #expect(ours.count == theirs.count)
        #expect(!ours.isEmpty)
        #expect(ours.map(\.md5) == theirs)
    }
}

/// Every fixture plays through to its end (4× speed, silent sink, pictures scaled), and files
/// that cannot play say so instead of hanging.
@Suite struct PlayToEndTests {
    static let playable = [
        "h264-aac-2audio-srt-ass.mkv", "hevc10-hdr10-ac3-51-movtext.mp4", "hevc-hlg.mp4", "vp9-opus.webm",
        "av1-opus.webm", "vp8-vorbis.webm", "mpeg2-interlaced-mp2.ts", "mpeg4-mp3.avi", "theora-vorbis.ogg",
        "h264-aac.flv", "multi-audio.mkv", "dvdsub.mkv", "dvbsub.ts", "tones-51.mkv", "solid-red.mkv",
        "wrong-extension.mkv",
    ]

    @Test(arguments: playable)
    func playsToTheEnd(file: String) throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.playing.rate = 4
        try player.load(url: TestEnvironment.fixture(file), options: o)
        player.setRenderSize(PixelSize(width: 160, height: 96))
        let lastFrame = Guarded<VideoFrame?>(nil)
        player.setFrameHandler { f in lastFrame.withLock { $0 = f } }
        player.play()
        _ = waitUntil(10, interval: 0.01) { player.state == .ended }
        #expect(player.state == .ended, "\(file) did not reach the end: \(player.state) at \(player.currentTime)")
        #expect(player.warnings.isEmpty, "\(player.warnings)")
        #expect(player.endedEarlyMessage == nil)
        let info = try #require(player.mediaInfo)
        if !info.video.isEmpty {
            let t = player.telemetry()
            #expect(t.frames.presented > 0)
            let frame = try #require(lastFrame.withLock { $0 })
            #expect(frame.width == 160 && frame.height == 96 && frame.pixels?.count == 160 * 96 * 3)
            if file.hasPrefix("mpeg2-interlaced") { #expect(t.video.deinterlacing) }
            if file.hasPrefix("hevc") { #expect(t.video.toneMapping) }
        }
        player.stop()
    }

    /// Tier realtime: a host that paints every 3rd frame gets only those, converted; the others
    /// are skipped before scaling and counted, and the rest keep the clock (one fixture second).
    @Test func aHostPaintingEveryThirdFrameGetsOnlyThose() throws {
        let player = Player()
        player.setFrameDivisor(3)
        defer { player.setFrameDivisor(1) }
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.length = 2
        try player.load(url: TestEnvironment.fixture("frames-numbered.mkv"), options: o)
        player.setRenderSize(PixelSize(width: 64, height: 48))
        let shown = Guarded<[Double]>([])
        player.setFrameHandler { f in if f.hasPixels { shown.withLock { $0.append(f.pts) } } }
        player.play()
        #expect(waitUntil(10) { player.state == .ended })
        let t = player.telemetry()
        let pts = shown.withLock { $0 }
        let fps = try #require(player.mediaInfo?.primaryVideo?.frameRate)
        #expect(t.frames.skipped > 0)
        // Frames decoded before play() took effect were decoded for a paused player, which shows
        // every frame (at most the frame queue and one more: a loaded machine runs the video
        // thread ahead of the test's play()); from then on, consecutive frames shown are three
        // intervals apart (or a multiple: one dropped late between).
        let steps = zip(pts.dropFirst(), pts).map { ($0 - $1) * fps }
        let whilePaused = steps.prefix { $0 < 1.5 }.count
        #expect(whilePaused <= SyncPolicy.standard.frameQueueCapacity + 1, "\(steps)")
        // The step from the last of those to the grid's next frame may be shorter: from the first
        // picture too, which a loaded player shows paused (in the full realtime tier: frame 0,
        // then the grid from frame 2, steps [2, 3, 3, …]).
        let playing = steps.dropFirst(whilePaused + 1)
        #expect(!playing.isEmpty && playing.allSatisfy { $0 > 2.9 && abs($0 / 3 - ($0 / 3).rounded()) < 0.04 }, "\(steps)")
        // Of every three frames two are skipped and one converted; a converted frame is shown or,
        // when it reached the presenter too late, dropped there. Counted from the frames shown on
        // the grid (frames presented before the render size was set had no pixels to show).
        let converted = pts.count - whilePaused - 1 + t.frames.droppedLate
        #expect(abs(t.frames.skipped - 2 * converted) <= 3,
                "skipped \(t.frames.skipped), presented \(t.frames.presented), late \(t.frames.droppedLate), early \(t.frames.droppedEarly), \(whilePaused) while paused")
        player.stop()
    }

    @Test func hdrIsToneMappedNotWashedOut() throws {
        // The same picture, SDR vs PQ-tagged, after tone-mapping: the PQ one must not be a grey wash.
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        try player.load(url: TestEnvironment.fixture("hevc10-hdr10-ac3-51-movtext.mp4"), options: o)
        player.setRenderSize(PixelSize(width: 64, height: 48))
        let frame = Guarded<VideoFrame?>(nil)
        player.setFrameHandler { f in frame.withLock { $0 = f } }
        player.seek(to: 1, mode: .exact)
        _ = waitUntil(5, interval: 0.01) { frame.withLock({ $0?.pts ?? 0 }) >= 0.9 }
        let pixels = try #require(frame.withLock { $0 }?.pixels).copyBytes()
        let minimum = pixels.min() ?? 255, maximum = pixels.max() ?? 0
        #expect(Int(maximum) - Int(minimum) > 150, "tone-mapped range \(minimum)…\(maximum)")
        player.stop()
    }

    @Test(arguments: [(PixelSize(width: 160, height: 90), nil as LoopFilterSkip?, "all" as String?),
                      (PixelSize(width: 480, height: 270), nil, "bidir"),
                      (PixelSize(width: 1280, height: 720), nil, nil),
                      (PixelSize(width: 1280, height: 720), .all, "all")])
    func theLoopFilterIsSkippedOnlyWhereItCannotShow(size: PixelSize, forced: LoopFilterSkip?, expected: String?) throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.video.skipLoopFilter = forced
        try player.load(url: TestEnvironment.fixture("h264-1080p.mkv"), options: o)
        player.setRenderSize(size)
        let frames = Guarded(0)
        player.setFrameHandler { f in if f.pixels?.count == size.width * size.height * 3 { frames.withLock { $0 += 1 } } }
        player.play()
        _ = waitUntil(5, interval: 0.01) { frames.withLock({ $0 }) >= 3 }
        #expect(frames.withLock { $0 } >= 3)
        #expect(player.telemetry(advance: false).video.loopFilterSkip == expected)
        player.stop()
    }

    @Test func solidRedDecodesAsRed() throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        try player.load(url: TestEnvironment.fixture("solid-red.mkv"), options: o)
        player.setRenderSize(PixelSize(width: 32, height: 24))
        let frame = Guarded<VideoFrame?>(nil)
        player.setFrameHandler { f in frame.withLock { $0 = f } }
        player.seek(to: 0.5, mode: .exact)
        _ = waitUntil(5, interval: 0.01) { frame.withLock({ $0?.pts ?? 0 }) >= 0.4 }
        let pixels = try #require(frame.withLock { $0 }?.pixels).copyBytes()
        for i in stride(from: 0, to: pixels.count, by: 3) {
            #expect(pixels[i] >= 250 && pixels[i + 1] <= 3 && pixels[i + 2] <= 3)
            if !(pixels[i] >= 250 && pixels[i + 1] <= 3 && pixels[i + 2] <= 3) { break }
        }
        player.stop()
    }
}

/// Subtitles decoded by the engine: bitmap cues with their timing and position, sidecars, and
/// cues that began before a seek target.
@Suite struct SubtitleDecodeTests {
    func play(_ file: String, configure: (inout PlayerOptions) -> Void = { _ in }) throws -> Player {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.playing.rate = 4
        configure(&o)
        try player.load(url: TestEnvironment.fixture(file), options: o)
        player.play()
        _ = waitUntil(10, interval: 0.01) { player.state == .ended }
        return player
    }

    @Test func dvdBitmapCuesHaveTimesPixelsAndAPlace() throws {
        let player = try play("dvdsub.mkv") { $0.subtitles.track = 0 }
        let cues = player.subtitleStore?.cues(track: 0) ?? []
        #expect(cues.count == 2)
        #expect(cues.map { ($0.start * 10).rounded() / 10 } == [0.5, 2.0])
        for cue in cues {
            guard case .bitmap(let b) = cue.content else { Issue.record("not a bitmap cue"); continue }
            #expect(b.pixelWidth > 0 && b.rgba.count == b.pixelWidth * b.pixelHeight * 4)
            #expect(b.y > 0.5 && b.y + b.height <= 1.0, "cue not near the bottom: \(b)")
            #expect(b.x > 0.2 && b.x + b.width < 0.8, "cue not centred: \(b)")
        }
        player.stop()
    }

    /// A Blu-ray's PGS track: one box 1-2 s into each clip, so on the main title's timeline at
    /// 1 s and, the second clip's clock moved to where the first ends, at 6 s.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: TestEnvironment.fixture("disc/bluray.iso"))))
    func aBlurayPGSTrackHasTheTitlesTimes() throws {
        let player = try play("disc/bluray.iso") { $0.subtitles.track = 0 }
        let cues = player.subtitleStore?.cues(track: 0) ?? []
        #expect(cues.map { ($0.start * 10).rounded() / 10 } == [1.0, 6.0], "\(cues.map(\.start))")
        for cue in cues {
            guard case .bitmap(let b) = cue.content else { Issue.record("not a bitmap cue"); continue }
            #expect(b.pixelWidth == 200 && b.pixelHeight == 40 && b.y > 0.6 && abs(b.x + b.width / 2 - 0.5) < 0.01, "\(b)")
        }
        player.stop()
    }

    @Test func sidecarSRTBecomesATrack() throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.subtitles.files = [TestEnvironment.fixture("h264-aac-2audio-srt-ass.srt")]
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: o)
        let sidecar = try #require(player.subtitleTracks.last)
        #expect(sidecar.kind == .text)
        player.selectSubtitleTrack(sidecar.id)
        #expect(player.subtitleCues(at: 0.7).compactMap(\.text) == ["Sidecar one"])
        #expect(player.subtitleCues(at: 1.7).isEmpty)
        #expect(player.subtitleCues(at: 2.5).compactMap(\.text) == ["Sidecar two"])
        player.stop()
    }

    @Test func anEmbeddedWindows1252TrackIsRead() throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.subtitles.track = 0
        try player.load(url: TestEnvironment.fixture("hostile/latin1-embedded.mkv"), options: o)
        player.play()
        #expect(waitUntil(5) { player.subtitleStore?.cues(track: 0).contains { $0.text?.contains("Café") == true } == true },
                "cues: \(player.subtitleStore?.cues(track: 0).compactMap(\.text) ?? [])")
        player.stop()
    }

    @Test func sidCanPickASubFileTrack() throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.subtitles.files = [TestEnvironment.fixture("h264-aac-2audio-srt-ass.srt")]
        let embedded = try MediaProbe.probe(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), network: NetworkSettings(), clock: .monotonic).subtitles.count
        o.subtitles.track = embedded  // the first track after the embedded ones: the --sub-file
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: o)
        let active = try #require(player.activeSubtitleTrack)
        #expect(player.subtitleTracks[active].source == .sidecar(path: o.subtitles.files[0]))
        #expect(player.subtitleCues(at: 0.7).compactMap(\.text) == ["Sidecar one"])
        player.stop()
    }

    @Test func switchingTracksFetchesTheNewTracksCues() throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.subtitles.enabled = false
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: o)
        #expect(player.subtitleStore?.cues(track: 0).isEmpty == true, "no track selected: nothing decoded")
        player.selectSubtitleTrack(0)   // paused at 0: the look-behind reader fetches the cues
        #expect(waitUntil(5) { player.subtitleCues(at: 0.7).compactMap(\.text) == ["Hello from aether"] })
        player.stop()
    }

    @Test func assOverridesAreStripped() throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.subtitles.files = [TestEnvironment.fixture("h264-aac-2audio-srt-ass.ass")]
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: o)
        let id = try #require(player.subtitleTracks.last?.id)
        player.selectSubtitleTrack(id)
        #expect(player.subtitleCues(at: 1.0).compactMap(\.text) == ["Sidecar one"])
        player.stop()
    }

    @Test func cueThatBeganBeforeTheSeekTargetIsShown() throws {
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.subtitles.track = 0
        o.start = 1.2   // inside "Hello from aether" (0.5–1.5), after the keyframe at 1.0
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: o)
        _ = waitUntil(3, interval: 0.01) { !player.subtitleCues(at: 1.2).isEmpty }
        #expect(player.subtitleCues(at: 1.2).compactMap(\.text) == ["Hello from aether"])
        player.stop()
    }
}
