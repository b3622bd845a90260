import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// Gapless playback's rules without a device in real time: who may stop a device handed from one
/// item to the next, which next item may continue it, where an MP4 edit list ends the sound.
/// (The joints themselves are heard in `GaplessPlaybackTests`, realtime tier.) Tier: unit.
struct GaplessTests {
    @Test func onlyTheOwnerStopsTheDeviceAndOwnershipPassesOnce() {
        let owner = SinkOwner()
        let sessions = (NSObject(), NSObject())  // kept alive: two distinct identities
        let a = ObjectIdentifier(sessions.0), b = ObjectIdentifier(sessions.1)
        owner.claim(a)
        #expect(!owner.release(b), "a prepared item that never took the device stopped it")
        #expect(owner.transfer(from: a, to: b))
        #expect(!owner.transfer(from: a, to: b), "handed over twice")
        #expect(!owner.release(a), "the item that gave the device away stopped it")
        #expect(owner.isOwned(by: b))
        #expect(owner.release(b))
        #expect(!owner.transfer(from: b, to: a), "a stopped owner handed its device on")
        withExtendedLifetime(sessions) {}
    }

    /// `weak` refuses a next item at another rate (one line saying both formats); `yes` takes
    /// it, its decoder converting to the device's format; the same rate continues under both.
    @Test func weakContinuesOnlyTheSameFormatAndYesConverts() throws {
        let device = NullSink(format: AudioFormat(sampleRate: 48000, channels: 2), time: .monotonic)
        var options = PlayerOptions(time: .monotonic)
        options.audio.output = .null
        options.audio.gapless = .weak
        #expect(throws: PlayerError.self) { try SourceOpener.open(url: TestEnvironment.fixture("gapless-44k.flac"), options: options, continuing: device) }
        do {
            _ = try SourceOpener.open(url: TestEnvironment.fixture("gapless-44k.flac"), options: options, continuing: device)
        } catch {
            #expect("\(error)".contains("(44100 Hz, 2 ch) differs from the playing item's (48000 Hz, 2 ch)"), "\(error)")
        }
        let same = try Self.media(url: TestEnvironment.fixture("gapless-4.flac"), options: options, continuing: device)
        #expect(same.audio.continuesSink && same.audio.sink === device)
        options.audio.gapless = .yes
        let converted = try Self.media(url: TestEnvironment.fixture("gapless-44k.flac"), options: options, continuing: device)
        #expect(converted.audio.continuesSink && converted.audio.sink === device && converted.audio.decoder != nil)
        let alone = try Self.media(url: TestEnvironment.fixture("gapless-44k.flac"), options: options)
        #expect(!alone.audio.continuesSink && alone.audio.sink?.format.sampleRate == 44100)
    }

    /// The AAC track's edit list ends it at 5 s (240 000 samples; the last frame's 640 padding
    /// samples are past it); the iTunes-tagged MP3 (no LAME header) starts after its 1105
    /// samples of priming and ends 240 000 later; a LAME MP3 and an Ogg have nothing to trim
    /// beyond what their decoders do.
    @Test func encoderDelayAndPaddingLeftByTheDecodersAreTrimmed() throws {
        var options = PlayerOptions(time: .monotonic)
        options.audio.output = .null
        let aac = try Self.media(url: TestEnvironment.fixture("gapless-2.m4a"), options: options)
        #expect(aac.audio.start == nil && aac.audio.end.map { abs($0 - 5) < 1e-6 } == true, "\(String(describing: aac.audio.end))")
        let itunes = try Self.media(url: TestEnvironment.fixture("gapless-itunes.mp3"), options: options)
        #expect(itunes.audio.start.map { abs($0 - 1105 / 48000.0) < 1e-9 } == true && itunes.audio.end.map { abs($0 - 241_105 / 48000.0) < 1e-9 } == true,
                "\(String(describing: itunes.audio.start)) \(String(describing: itunes.audio.end))")
        for file in ["gapless-1.mp3", "gapless-3.opus"] {
            let opened = try Self.media(url: TestEnvironment.fixture(file), options: options)
            #expect(opened.audio.start == nil && opened.audio.end == nil, "\(file)")
        }
    }

    /// `iTunSMPB` is outside input: the fields as iTunes writes them, or nothing.
    @Test func anITunesGapValueIsReadWithinItsLimits() {
        #expect(EncoderGap.ITunes.parse(" 00000000 00000451 0000032F 000000000003A980 00000000 00000000")
                == EncoderGap.ITunes(priming: 1105, padding: 815, samples: 240_000))
        for hostile in ["", " 00000000", " 00000000 FFFFFFFF 00000000 0000000000000001", " 0 10 10 0",
                        " 0 10 10 FFFFFFFFFFFFFFFF", " 0 zz 10 10", " 0 10 -5 10", " 0 123456789 0 1",
                        String(repeating: " 0", count: 10_000)] {
            #expect(EncoderGap.ITunes.parse(hostile) == nil, "\(hostile.prefix(40))")
        }
    }
}

extension GaplessTests {
    /// What the opener opened: the fixtures here are media, never a page.
    static func media(url: String, options: PlayerOptions, continuing: AudioSink? = nil) throws -> OpenedSource {
        guard case .media(let opened) = try SourceOpener.open(url: url, options: options, continuing: continuing) else {
            throw PlayerError("'\(url)' was taken for a page")
        }
        return opened
    }
}
