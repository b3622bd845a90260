import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// DASH manifests as others write them (issue 33), written here from ISO/IEC 23009-1 and the
/// DASH-IF guidelines on the suite's own 20 s two-video, one-audio stream (`dash-vod`, 2 s
/// segments): each plays headless to its end and downloads to a file ffprobe reads with the same
/// streams and length. Tier: network.
@Suite struct DASHConformanceTests {
    /// The fixture's manifest with its segments named from `base` (another server's dash-vod).
    static func manifest(base: String, _ edit: @Sendable (String) -> String) throws -> String {
        let text = try String(contentsOfFile: NetworkTests.root + "/dash-vod/manifest.mpd", encoding: .utf8)
        return edit(text.replacingOccurrences(of: "<Period id=\"0\" start=\"PT0.0S\">",
                                              with: "<BaseURL>\(base)</BaseURL>\n<Period id=\"0\" start=\"PT0.0S\">"))
    }

    /// dash-ranges-abr's `name` (sl.mpd, sb.mpd) naming its files on `media`.
    static func rangesManifest(_ name: String, on media: LoopbackHTTP) throws -> String {
        var text = try String(contentsOfFile: NetworkTests.root + "/dash-ranges-abr/" + name, encoding: .utf8)
        for file in ["v0.mp4", "v1.mp4", "v2.mp4", "Francais.mp4"] {
            text = text.replacingOccurrences(of: "<BaseURL>\(file)</BaseURL>", with: "<BaseURL>\(media.url("dash-ranges-abr/" + file))</BaseURL>")
        }
        return text
    }

    /// Name → (the edit, the media seconds the presentation has).
    static let cases: [(String, @Sendable (String) -> String, Double)] = [
        // @bandwidth is optional in practice (28 of 50 third-party samples left it out or 0).
        ("no-bandwidth", { $0.replacing(#/ bandwidth="\d+"/#, with: "") }, 20),
        ("zero-bandwidth", { $0.replacing(#/ bandwidth="\d+"/#, with: #" bandwidth="0""#) }, 20),
        // Scheme identifiers are names: events, roles, accessibility and properties in urn: form.
        ("schemes", {
            $0.replacingOccurrences(of: "<AdaptationSet id=\"0\"", with: """
                <EventStream schemeIdUri="urn:dvb:iptv:rating:2014:15" value="1" timescale="1"><Event presentationTime="0" duration="20" id="1">urn:dvb:iptv:rating:2014:15</Event></EventStream>
                <AdaptationSet id="0"
                """)
            .replacingOccurrences(of: "<Representation id=\"0\"", with: """
                <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
                <Accessibility schemeIdUri="urn:tva:metadata:cs:AudioPurposeCS:2007" value="1"/>
                <EssentialProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="1"/>
                <SupplementalProperty schemeIdUri="urn:mpeg:mpegB:cicp:ColourPrimaries" value="1"/>
                <InbandEventStream schemeIdUri="urn:mpeg:dash:event:2012" value="1"/>
                <Representation id="0"
                """)
        }, 20),
        // One representation the player may not use (a local file named by a remote manifest):
        // left out, the others play.
        ("one-local", {
            $0.replacingOccurrences(of: "<Representation id=\"0\"", with: """
                <Representation id="local" mimeType="video/mp4" codecs="avc1.42c01e" bandwidth="9000000" width="1280" height="720"><BaseURL>file:///etc/</BaseURL></Representation>
                <Representation id="0"
                """)
        }, 20),
        // A period shorter than its media: the manifest's word on what plays.
        ("short-period", {
            $0.replacingOccurrences(of: #"mediaPresentationDuration="PT20.0S""#, with: #"mediaPresentationDuration="PT10.0S""#)
                .replacingOccurrences(of: "<Period id=\"0\" start=\"PT0.0S\">", with: "<Period id=\"0\" start=\"PT0.0S\" duration=\"PT10S\">")
        }, 10),
    ]

    @Test func eachPlaysToItsEndAndDownloads() throws {
        let media = try LoopbackHTTP(root: NetworkTests.root)
        defer { media.stop() }
        let dir = PlayerRuns.temp("mpds")
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, edit, _) in Self.cases {
            let text = try Self.manifest(base: media.url("dash-vod/"), edit)
            try text.write(toFile: "\(dir)/\(name).mpd", atomically: true, encoding: .utf8)
        }
        let manifests = try LoopbackHTTP(root: dir)
        defer { manifests.stop() }
        for (name, _, length) in Self.cases {
            // The last 3 s of it, headless: it opens, plays them and ends where the manifest says.
            let (r, summaries) = try PlayerRuns.headless([manifests.url("\(name).mpd"), "--start=\(Int(length) - 3)"], timeout: 60)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let s = summaries.last
            #expect(s?.endedEarly == nil, "\(name): ended early: \(String(describing: s?.endedEarly))")
            #expect((2.5...3.6).contains(s?.mediaSeconds ?? 0), "\(name): played \(String(describing: s?.mediaSeconds)) s of the last 3")
            #expect((s?.frames.presented ?? 0) >= 66, "\(name): \(String(describing: s?.frames.presented)) frames shown of 72")
        }
        // Downloads: the same streams and length ffprobe reads.
        for name in ["no-bandwidth", "schemes", "one-local"] {
            let out = PlayerRuns.temp("\(name).mkv")
            defer { try? FileManager.default.removeItem(atPath: (out as NSString).deletingLastPathComponent) }
            let d = Process.run([TestEnvironment.binary, "download", manifests.url("\(name).mpd"), "-o", out], timeout: 120)
            #expect(d.status == 0, "\(name): \(d.stderr)")
            if name == "one-local" {
                #expect(d.stderr.contains("note: representation 'local' left out: "), "\(name): \(d.stderr)")
            }
            let probe = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type",
                                     "-of", "csv=p=0", out], timeout: 30)
            let lines = probe.stdout.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0 == "video" }.count == 1 && lines.filter { $0 == "audio" }.count == 1, "\(name): \(lines)")
            let duration = lines.compactMap(Double.init).first ?? 0
            #expect(abs(duration - 20) < 0.1, "\(name): \(duration) s")
        }
    }

    /// Byte ranges as servers answer them (issue 33, item 5), in playback and download alike:
    /// a `SegmentURL@mediaRange` one byte past the end of its file (served to the file's end:
    /// that is its end, not a short read), a server that answers ranges with the whole resource
    /// (200: the bytes before the range are dropped), and one that does not say its resources'
    /// lengths (`Content-Range: bytes a-b/*`, which libavformat 5.1 reads as an empty body).
    @Test func byteRangesAsServersAnswerThem() throws {
        let media = try LoopbackHTTP(root: NetworkTests.root)
        defer { media.stop() }
        let dir = PlayerRuns.temp("ranges")
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // sl.mpd with each representation's last mediaRange ending one byte past its file.
        var text = try Self.rangesManifest("sl.mpd", on: media)
        for name in ["v0.mp4", "v1.mp4", "v2.mp4", "Francais.mp4"] {
            let size = try FileManager.default.attributesOfItem(atPath: NetworkTests.root + "/dash-ranges-abr/" + name)[.size] as? Int ?? 0
            text = text.replacingOccurrences(of: "-\(size - 1)\"", with: "-\(size)\"")
        }
        #expect(text.components(separatedBy: "mediaRange").count > 100)
        try text.write(toFile: dir + "/past-end.mpd", atomically: true, encoding: .utf8)
        let manifests = try LoopbackHTTP(root: dir)
        defer { manifests.stop() }
        let source = try Self.frameDigests(NetworkTests.root + "/dash-ranges-abr/v2.mp4")
        for (name, rules) in [("standard", "[]"), ("no ranges", #"[{"path":"mp4","ignore_range":true}]"#),
                              ("no length", #"[{"path":"mp4","hide_total":true}]"#)] {
            try media.setRules(rules)
            let (r, summaries) = try PlayerRuns.headless([manifests.url("past-end.mpd"), "--start=74"], timeout: 60)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect((5.5...6.6).contains(summaries.last?.mediaSeconds ?? 0) && (summaries.last?.frames.presented ?? 0) >= 138,
                    "\(name): \(String(describing: summaries.last.map { ($0.mediaSeconds, $0.frames.presented) }))")
            let out = dir + "/\(name.replacingOccurrences(of: " ", with: "-")).mkv"
            let d = Process.run([TestEnvironment.binary, "download", manifests.url("past-end.mpd"), "-o", out], timeout: 120)
            #expect(d.status == 0, "\(name): \(d.stderr)")
            #expect(try Self.frameDigests(out) == source, "\(name): the downloaded video is not the source's frames")
        }
    }

    /// dash-vod's top video and its audio as two periods split at 10 s (segments 1–5, then 6–10
    /// with each set's `presentationTimeOffset`; the audio's SegmentTimeline split where its
    /// sixth segment starts, 10.005 s). `secondVideo`: the second period's video set from
    /// another directory, representation and codec (dash-hevc's `0`, `hvc1`). `again`: the second
    /// period plays the first one's segments again, their media from 0 (`presentationTimeOffset`
    /// 0 at a period start of 10 s: an advert shown twice).
    static func twoPeriods(base: String, secondVideo: (base: String, id: String, codecs: String)? = nil, again: Bool = false) -> String {
        func period(_ id: Int, start: Int, first: Int, video: String, audio: String, offset: Int? = nil) -> String {
            let other = id == 1 ? secondVideo : nil
            return """
            <Period id="\(id)" start="PT\(start)S" duration="PT10S"><BaseURL>\(base)</BaseURL>
            <AdaptationSet id="0" contentType="video" segmentAlignment="true">\(other.map { "<BaseURL>\($0.base)</BaseURL>" } ?? "")
            <Representation id="\(other?.id ?? "1")" mimeType="video/mp4" codecs="\(other?.codecs ?? "avc1.42c01e")" bandwidth="540000" width="640" height="360">
            <SegmentTemplate timescale="12288" presentationTimeOffset="\((offset ?? start) * 12288)" initialization="init-stream$RepresentationID$.m4s"
             media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="\(first)"><SegmentTimeline>\(video)</SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet>
            <AdaptationSet id="1" contentType="audio" lang="eng" segmentAlignment="true">
            <Representation id="2" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="96000" audioSamplingRate="48000">
            <SegmentTemplate timescale="48000" presentationTimeOffset="\((offset ?? start) * 48000)" initialization="init-stream$RepresentationID$.m4s"
             media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="\(first)"><SegmentTimeline>\(audio)</SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet></Period>
            """
        }
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static"
             mediaPresentationDuration="PT20.0S" minBufferTime="PT4.0S">
            \(period(0, start: 0, first: 1, video: #"<S t="0" d="24576" r="4"/>"#, audio: #"<S t="0" d="95232"/><S d="96256" r="3"/>"#))
            \(again ? period(1, start: 10, first: 1, video: #"<S t="0" d="24576" r="4"/>"#, audio: #"<S t="0" d="95232"/><S d="96256" r="3"/>"#, offset: 0)
                : period(1, start: 10, first: 6, video: #"<S t="122880" d="24576" r="4"/>"#,
                         audio: #"<S t="480256" d="96256" r="1"/><S d="95232"/><S d="96256"/><S d="95744"/>"#))
            </MPD>
            """
    }

    /// More forms (issue 33, items 3, 4 and 9), each checked against ffprobe (libavformat's dash
    /// demuxer over the same HTTP): the player's length is the manifest's (ffprobe's too, but for
    /// two periods, of which it reads the first), its video and audio codecs are ffprobe's,
    /// its chapters are the periods, it plays the end (across the period boundary for two
    /// periods), and the download has ffprobe's codecs and length within a frame.
    /// (One case per form: they run at once.)
    @Test(arguments: ["two-periods", "a-period-again", "another-init-section", "webm-vp9-opus", "av1-fmp4", "timeline-r-1", "segment-base", "representation-index"])
    func moreFormsAgreeWithFFprobeAndDownload(form: String) throws {
        let media = try LoopbackHTTP(root: NetworkTests.root)
        defer { media.stop() }
        let dir = PlayerRuns.temp("forms")
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func fixture(_ path: String, _ edit: (String) -> String = { $0 }) throws -> String {
            let text = try String(contentsOfFile: NetworkTests.root + "/" + path, encoding: .utf8)
            let base = media.url((path as NSString).deletingLastPathComponent + "/")
            return edit(text.replacingOccurrences(of: "<Period id=\"0\" start=\"PT0.0S\">", with: "<BaseURL>\(base)</BaseURL>\n<Period id=\"0\" start=\"PT0.0S\">"))
        }
        let sb = try Self.rangesManifest("sb.mpd", on: media)
        // Name, manifest, its length, the player's arguments, chapter starts.
        let forms: [(String, String, Double, [String], [Double]?)] = [
            ("two-periods", Self.twoPeriods(base: media.url("dash-vod/")), 20, ["--start=8", "--speed=4"], [0, 10]),
            ("a-period-again", Self.twoPeriods(base: media.url("dash-vod/"), again: true), 20, ["--start=8", "--speed=4"], [0, 10]),
            // The second period's video from another encode (320×180, its own init section and
            // parameter sets: an advert encoded apart).
            ("another-init-section", Self.twoPeriods(base: media.url("dash-vod/"), secondVideo: (media.url("dash-vod/"), "0", "avc1.42c00c")),
             20, ["--start=8", "--speed=4"], [0, 10]),
            ("webm-vp9-opus", try fixture("dash-webm/manifest.mpd"), 20, ["--start=17"], nil),
            ("av1-fmp4", try fixture("dash-av1/manifest.mpd"), 20, ["--start=17"], nil),
            // SegmentTimeline's r="-1": repeated up to the period's end.
            ("timeline-r-1", try fixture("dash-vod/manifest.mpd") { $0.replacingOccurrences(of: #"<S t="0" d="24576" r="9" />"#, with: #"<S t="0" d="24576" r="-1" />"#) },
             20, ["--start=17"], nil),
            ("segment-base", sb, 80, ["--start=77"], nil),
            // SegmentBase's index named by a RepresentationIndex element instead of @indexRange.
            ("representation-index", sb.replacing(#/<SegmentBase indexRange="(\d+-\d+)"><Initialization range="(\d+-\d+)"\/><\/SegmentBase>/#) {
                #"<SegmentBase><Initialization range="\#($0.output.2)"/><RepresentationIndex range="\#($0.output.1)"/></SegmentBase>"#
            }, 80, ["--start=77"], nil),
        ]
        for (name, text, _, _, _) in forms { try text.write(toFile: "\(dir)/\(name).mpd", atomically: true, encoding: .utf8) }
        #expect(!forms.contains { $0.0 == "representation-index" && !$0.1.contains("<RepresentationIndex") }, "the form did not take")
        let manifests = try LoopbackHTTP(root: dir)
        defer { manifests.stop() }
        func probe(_ path: String) -> (duration: Double, video: String?, audio: String?) {
            let r = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type,codec_name",
                                 "-of", "csv=p=0", path], timeout: 60)
            let lines = r.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
            return (lines.compactMap { $0.count == 1 ? Double($0[0]) : nil }.first ?? 0,
                    lines.first { $0.count == 2 && $0[1] == "video" }?[0], lines.first { $0.count == 2 && $0[1] == "audio" }?[0])
        }
        // libavformat 5.1 cannot read `r="-1"` ("Error when loading first fragment").
        try fixture("dash-vod/manifest.mpd").write(toFile: "\(dir)/dash-vod.mpd", atomically: true, encoding: .utf8)
        #expect(forms.contains { $0.0 == form }, "no form \(form)")
        for (name, _, length, arguments, chapters) in forms where name == form {
            let url = manifests.url("\(name).mpd")
            // libavformat 5.1 reads neither `r="-1"` nor RepresentationIndex: ffprobe reads the
            // same media through the form it reads.
            let reference = probe(manifests.url(["timeline-r-1": "dash-vod.mpd", "representation-index": "segment-base.mpd"][name] ?? "\(name).mpd"))
            // libavformat 5.1's dash demuxer reads the first period only (10 s of two periods).
            #expect(abs(reference.duration - (chapters.map { $0.count > 1 ? $0[1] : length } ?? length)) < 0.05
                    && reference.video != nil && reference.audio != nil, "\(name): ffprobe \(reference)")
            let (r, summaries) = try PlayerRuns.headless([url] + arguments, timeout: 60)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let s = try #require(summaries.last, "\(name): no summary")
            #expect(s.endedEarly == nil, "\(name): ended early: \(String(describing: s.endedEarly))")
            #expect(abs((s.media.duration ?? 0) - length) < 0.05, "\(name): length \(String(describing: s.media.duration)) of \(length)")
            #expect(s.media.videoCodec == reference.video && s.media.audioCodec == reference.audio,
                    "\(name): \(String(describing: s.media.videoCodec))/\(String(describing: s.media.audioCodec)), ffprobe \(reference)")
            #expect(s.media.chapterStarts == chapters, "\(name): chapters \(String(describing: s.media.chapterStarts))")
            let played = length - (Double(arguments.first { $0.hasPrefix("--start=") }?.dropFirst(8) ?? "0") ?? 0)
            #expect(abs(s.mediaSeconds - played) < 0.6, "\(name): played \(s.mediaSeconds) s of \(played)")
            #expect(Double(s.frames.presented + s.frames.dropped) >= (played - 0.6) * 24, "\(name): \(s.frames.presented) frames shown")
            let out = dir + "/\(name).mkv"
            let d = Process.run([TestEnvironment.binary, "download", url, "-o", out], timeout: 120)
            #expect(d.status == 0, "\(name): \(d.stderr)")
            let file = probe(out)
            #expect(file.video == reference.video && file.audio == reference.audio, "\(name): download \(file), ffprobe \(reference)")
            #expect(abs(file.duration - length) <= 1.0 / 24 + 0.01, "\(name): download \(file.duration) s of \(length)")
            if name == "a-period-again" {
                // The second period's pictures are the first one's, after them.
                let frames = try Self.frameDigests(out)
                #expect(frames.count == 480 && Array(frames[240...]) == Array(frames[..<240]),
                        "\(name): \(frames.count) frames")
            }
            if name == "another-init-section" {
                // One video stream: the first period's pictures at 640×360, then the second's at
                // 320×180, each decoded as from its own init section (every keyframe carries its
                // parameter sets: a seek into either part decodes).
                let root = NetworkTests.root + "/dash-vod/"
                func joined(_ id: Int, _ numbers: ClosedRange<Int>) throws -> String {
                    var bytes = try Data(contentsOf: URL(fileURLWithPath: root + "init-stream\(id).m4s"))
                    for k in numbers { bytes += try Data(contentsOf: URL(fileURLWithPath: root + String(format: "chunk-stream\(id)-%05d.m4s", k))) }
                    let path = dir + "/source\(id).mp4"
                    try bytes.write(to: URL(fileURLWithPath: path))
                    return path
                }
                let first = try Self.decodedDigests(joined(1, 1...5)), second = try Self.decodedDigests(joined(0, 6...10))
                let frames = try Self.decodedDigests(out)
                #expect(first.count == 240 && second.count == 240 && frames == first + second,
                        "\(name): \(frames.count) frames, \(zip(frames, first + second).filter { $0 != $1 }.count) differ")
                let seek = Process.run(["/usr/bin/ffprobe", "-v", "error", "-read_intervals", "15%+0.2", "-select_streams", "v",
                                        "-show_entries", "frame=width,height", "-of", "csv=p=0", out], timeout: 60)
                #expect(seek.stderr.isEmpty && seek.stdout.split(separator: "\n").first == "320,180", "\(name): from 15 s \(seek.stdout) \(seek.stderr)")
                #expect(d.stderr.isEmpty, "\(name): \(d.stderr)")
            }
            print("conformance \(name): ffprobe \(reference); played \(String(format: "%.2f", s.mediaSeconds)) s, \(s.frames.presented) frames; download \(file)")
        }
    }

    /// A second period in another codec (issue 33, item 3): H.264 for 10 s, then HEVC. Played
    /// across the boundary and from inside the HEVC period, every frame of the time played is
    /// shown (but the H.264 period's last, which libavformat's MPEG-TS reader hands on only at
    /// the end: counted as dropped) and the chapters are the periods. A download cannot put
    /// two codecs in one stream: it writes the H.264 period's video and all the sound, and says
    /// in one note that the HEVC period's video is left out (and `--list` says so first).
    @Test func aPeriodInAnotherCodecPlaysOn() throws {
        let media = try LoopbackHTTP(root: NetworkTests.root)
        defer { media.stop() }
        let dir = PlayerRuns.temp("codecs")
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.twoPeriods(base: media.url("dash-vod/"), secondVideo: (media.url("dash-hevc/"), "0", "hvc1"))
            .write(toFile: dir + "/codecs.mpd", atomically: true, encoding: .utf8)
        let manifests = try LoopbackHTTP(root: dir)
        defer { manifests.stop() }
        for (start, speed) in [(8, 4), (12, 2)] {
            let (r, summaries) = try PlayerRuns.headless([manifests.url("codecs.mpd"), "--start=\(start)", "--speed=\(speed)"], timeout: 60)
            #expect(r.status == 0, "from \(start) s: \(r.stderr)")
            let s = try #require(summaries.last, "from \(start) s: no summary")
            #expect(s.endedEarly == nil && abs(s.mediaSeconds - Double(20 - start)) < 0.6, "from \(start) s: \(s.mediaSeconds) s, \(String(describing: s.endedEarly))")
            let frames = (20 - start) * 24
            // Every frame shown or counted (a slow machine drops late ones at 4×, counted too).
            #expect(abs(s.frames.presented + s.frames.dropped - frames) <= 1,
                    "from \(start) s: \(s.frames.presented) shown + \(s.frames.dropped) dropped of \(frames)")
            #expect(s.media.chapterStarts == [0, 10], "from \(start) s: \(String(describing: s.media.chapterStarts))")
            print("codec change from \(start) s at \(speed)×: \(s.frames.presented) shown, \(s.frames.dropped) dropped of \(frames)")
        }
        let out = dir + "/codecs.mkv"
        let note = "video of period 2 (from 10.0 s) left out: its codec 'hvc1' cannot go on in the 'avc1' stream before it"
        let list = Process.run([TestEnvironment.binary, "download", "--list", manifests.url("codecs.mpd")], timeout: 60)
        #expect(list.status == 0 && list.stdout.split(separator: "\n").last.map(String.init) == "left out: " + note, "\(list.stdout)")
        let d = Process.run([TestEnvironment.binary, "download", manifests.url("codecs.mpd"), "-o", out], timeout: 60)
        #expect(d.status == 0 && d.stderr.split(separator: "\n").filter { !$0.hasPrefix("download:") } == ["aether-tui: note: " + note], "\(d.stderr)")
        let streams = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=duration", "-of", "csv=p=0", out], timeout: 60)
        let lines = streams.stdout.split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == ["h264", "aac"] && lines.count == 3 && abs((Double(lines[2]) ?? 0) - 20) < 0.05, "\(lines)")
        #expect(try Self.frameDigests(out).count == 240)
    }

    /// Every video frame decoded, as its MD5 (ffmpeg's framemd5, each frame at its own size).
    static func decodedDigests(_ path: String) throws -> [String] {
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-autoscale", "0", "-f", "framemd5", "-"], timeout: 120)
        try #require(r.status == 0 && r.stderr.isEmpty, "ffmpeg: \(r.stderr)")
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
    }

    /// Every video frame's coded bytes, as size and MD5 (ffmpeg's framemd5 of the packets as
    /// they are, `-c copy`: a download remuxes them unchanged, and nothing is decoded).
    static func frameDigests(_ path: String) throws -> [String] {
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"], timeout: 120)
        try #require(r.status == 0, "ffmpeg: \(r.stderr)")
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: ",").suffix(2).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",") }
    }
}
