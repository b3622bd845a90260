import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// Cover art and tags of the generated music files (make-fixtures.sh, "Music"), and how an
/// audio file with an attached picture plays: as audio only.
@Suite struct CoverArtTests {
    func load(_ name: String, _ configure: (inout PlayerOptions) -> Void = { _ in }) throws -> Player {
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        configure(&o)
        let player = Player()
        try player.load(url: TestEnvironment.fixture(name), options: o)
        return player
    }

    /// The RGB of pixel (x, y).
    func pixel(_ image: StillImage, _ x: Int, _ y: Int) -> [Int] {
        let i = (y * image.width + x) * 3
        return [Int(image.pixels[i]), Int(image.pixels[i + 1]), Int(image.pixels[i + 2])]
    }

    func near(_ a: [Int], _ b: [Int], within tolerance: Int) -> Bool {
        zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func mp3PictureIsDecodedAtItsSizeWithItsColours() throws {
        let player = try load("music-tagged.mp3")
        defer { player.stop() }
        let cover = try #require(player.coverArt)
        #expect(cover.width == 120 && cover.height == 80)
        #expect(cover.pixels.count == 120 * 80 * 3)
        // Left half #D02020, right half #2040E0 (a PNG: exact, away from the seam).
        for y in [0, 40, 79] {
            #expect(pixel(cover, 5, y) == [0xD0, 0x20, 0x20], "left at row \(y): \(pixel(cover, 5, y))")
            #expect(pixel(cover, 114, y) == [0x20, 0x40, 0xE0], "right at row \(y): \(pixel(cover, 114, y))")
        }
        // Decoded once: the same picture again.
        #expect(player.coverArt == cover)
    }

    @Test func flacAndM4APicturesAreFoundToo() throws {
        let flac = try load("music-cover.flac")
        defer { flac.stop() }
        let green = try #require(flac.coverArt)
        #expect(green.width == 64 && green.height == 64)
        for (x, y) in [(0, 0), (32, 32), (63, 63)] {
            #expect(near(pixel(green, x, y), [0x20, 0xC0, 0x40], within: 6), "JPEG cover at \(x),\(y): \(pixel(green, x, y))")
        }
        let m4a = try load("music-cover.m4a")
        defer { m4a.stop() }
        let covr = try #require(m4a.coverArt)
        #expect(covr.width == 120 && covr.height == 80)
        #expect(pixel(covr, 5, 40) == [0xD0, 0x20, 0x20])
    }

    @Test func noPictureMeansNoCover() throws {
        let opus = try load("music-plain.opus")
        defer { opus.stop() }
        #expect(opus.coverArt == nil)
        let video = try load("sine-1k.mkv")
        defer { video.stop() }
        #expect(video.coverArt == nil)
    }

    /// The attached picture is listed as an attachment, never as a video stream, and playback
    /// runs on the audio alone: it starts, runs on the audio's clock and ends at the end of the
    /// media, with no frame presented. (That it keeps real time is the real-time tier's:
    /// PlaybackTests.anAttachedPictureFilePlaysInRealTime.)
    @Test func anAttachedPictureIsNotAVideoStream() throws {
        let player = try load("music-cover.flac")
        defer { player.stop() }
        let info = try #require(player.mediaInfo)
        #expect(info.video.isEmpty)
        #expect(info.attachments.map(\.kind) == ["cover art"])
        #expect(!player.hasVideo)
        player.play()
        #expect(waitUntil(1) { player.state == .playing }, "state \(player.state)")
        #expect(waitUntil(6) { player.state == .ended }, "state \(player.state) at \(player.currentTime) s")
        #expect(player.endedEarlyMessage == nil, "\(player.endedEarlyMessage ?? "")")
        let t = player.telemetry()
        #expect(t.frames.presented == 0)
        #expect(t.sync.clockSource == "audio")
    }

    /// `--vid=no`: a video file plays as audio only (no decoder, no frames), its tags and its
    /// (absent) cover as for an audio file.
    @Test func videoDisabledPlaysTheAudioOnly() throws {
        let player = try load("sine-1k.mkv") { $0.video.enabled = false; $0.length = 1 }
        defer { player.stop() }
        #expect(!player.hasVideo)
        #expect(player.mediaInfo?.video.count == 1, "the file still has its video stream")
        let frames = Guarded(0)
        player.setFrameHandler { _ in frames.withLock { $0 += 1 } }
        player.play()
        #expect(waitUntil(5) { player.state == .ended })
        #expect(frames.withLock { $0 } == 0)
        #expect(player.telemetry().frames.presented == 0)
    }
}

@Suite struct MediaTagsTests {
    func info(_ name: String) throws -> MediaInfo {
        try MediaProbe.probe(url: TestEnvironment.fixture(name), network: NetworkSettings(), clock: .monotonic)
    }

    @Test func id3TagsAreReadAndSanitised() throws {
        let tags = try info("music-tagged.mp3").tags
        #expect(tags == MediaTags(title: "Test Title", artist: "Test Artist", album: "Album One", albumArtist: "Various",
                                  track: "3/12", date: "2021-05-14", genre: "Ambient"))
        #expect(tags.year == "2021")
    }

    @Test func vorbisCommentsAndMP4AtomsAreRead() throws {
        let flac = try info("music-cover.flac").tags
        #expect(flac.title == "Flac Title" && flac.artist == "Flac Artist")
        #expect(try info("music-cover.m4a").tags.title == "M4A Title")
    }

    /// Ogg keeps its comments on the stream: they are read from there.
    @Test func streamTagsFillInForTheContainer() throws {
        let opus = try info("music-plain.opus").tags
        #expect(opus.title == "Opus Title" && opus.artist == "Opus Artist")
        #expect(opus.album == nil)
    }

    @Test func anUntaggedFileHasNoTags() throws {
        #expect(try info("sine-1k.mkv").tags.isEmpty)
    }

    /// In a video file an audio stream's title names the track ("English Stereo"): it is not
    /// taken for the work's title; the container's is (sanitised).
    @Test func aTrackTitleIsNotTheTitle() throws {
        let tags = try info("h264-aac-2audio-srt-ass.mkv").tags
        #expect(tags.title == "Demo Title", "\(tags)")
        #expect(tags.artist == nil)
    }

    @Test func yearIsTheFirstFourDigitRun() {
        #expect(MediaTags(date: "2021").year == "2021")
        #expect(MediaTags(date: "2021-05-14").year == "2021")
        #expect(MediaTags(date: "14.05.1999").year == "1999")
        #expect(MediaTags(date: "12345").year == "12345", "no four-digit run: as written")
        #expect(MediaTags(date: "spring").year == "spring")
        #expect(MediaTags().year == nil)
    }
}
