import AetherEngine
@testable import AetherStreaming
@testable import AetherStills
import AetherTestSupport
import Foundation
import Testing

/// Thumbnail tracks from manifests (pure parsing, tile geometry and time mapping): the network
/// fixtures' DASH-IF thumbnail set (`dash-thumbs`, 40 s, two full 5×2 sheets of 160×90
/// thumbnails, 2 s each) and HLS image playlist (`hls-thumbs`, 30 s, the second sheet half
/// full), and hand-written edge cases and hostile values.
@Suite struct ManifestThumbnailsTests {
    static let host = "http://media.example/"

    static func text(_ fixture: String) throws -> String {
        try String(contentsOfFile: TestEnvironment.fixture("net/" + fixture), encoding: .utf8)
    }

    /// A one-period static MPD around `body` (an AdaptationSet or more).
    static func mpd(_ body: String, duration: String = "PT40S", extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="\(duration)" \(extra)>
          <Period id="0" start="PT0S">
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1000" width="640" height="360" mimeType="video/mp4"/></AdaptationSet>
            \(body)
          </Period>
        </MPD>
        """
    }

    static func imageSet(media: String = "thumbs/tile$Number$.jpg", template: String = #"duration="20" startNumber="1" timescale="1""#,
                         size: String = #"width="800" height="180""#, tile: String = "5x2", id: String = "thumbs") -> String {
        """
        <AdaptationSet id="2" contentType="image" mimeType="image/jpeg">
          <SegmentTemplate media="\(media)" \(template) />
          <Representation id="\(id)" bandwidth="15416" \(size)>
            <EssentialProperty schemeIdUri="http://dashif.org/thumbnail_tile" value="\(tile)" />
          </Representation>
        </AdaptationSet>
        """
    }

    // MARK: the fixtures

    @Test func dashFixtureGivesTwoFullSheets() throws {
        let base = Self.host + "dash-thumbs/manifest.mpd"
        let track = try #require(DASHThumbnails.track(in: try Self.text("dash-thumbs/manifest.mpd"), base: base))
        #expect(track.origin == .dash)
        #expect(track.sheets.map(\.url) == [Self.host + "dash-thumbs/thumbs/tile1.jpg", Self.host + "dash-thumbs/thumbs/tile2.jpg"])
        #expect(track.sheets.map(\.start) == [0, 20])
        #expect(track.sheets.map(\.duration) == [20, 20])
        for sheet in track.sheets {
            #expect(sheet.columns == 5 && sheet.rows == 2)
            #expect(sheet.tileWidth == 160 && sheet.tileHeight == 90)
            #expect(sheet.tileDuration == 2)
            #expect(sheet.tileCount == 10)
        }
        #expect(track.end == 40)
        #expect(track.summary == "DASH thumbnails: 2 sheets of 5×2, 160×90 px, 2 s each")
    }

    /// Thumbnail k stands for 2k … 2k+2 s: sheet k / 10, cell k % 10 (row-major).
    @Test(arguments: [(0.0, 1, 0), (1.99, 1, 0), (2.0, 1, 1), (10.0, 1, 5), (11.5, 1, 5), (19.99, 1, 9),
                      (20.0, 2, 0), (29.0, 2, 4), (39.9, 2, 9), (40.0, 2, 9), (500.0, 2, 9), (-3.0, 1, 0)])
    func dashFixtureTimeMapping(seconds: Double, sheet: Int, index: Int) throws {
        let track = try #require(DASHThumbnails.track(in: try Self.text("dash-thumbs/manifest.mpd"), base: Self.host + "m.mpd"))
        let tile = try #require(track.tile(at: seconds))
        #expect(tile.sheet.url.hasSuffix("tile\(sheet).jpg"))
        #expect(tile.index == index)
        let k = (sheet - 1) * 10 + index
        #expect(tile.start == Double(k * 2) && tile.end == Double(k * 2 + 2))
        #expect(tile.rect(sheetWidth: 800, sheetHeight: 180) == PixelRect(x: (index % 5) * 160, y: (index / 5) * 90, width: 160, height: 90))
    }

    @Test func hlsFixtureImageStreamAndPartialLastSheet() throws {
        let master = Self.host + "hls-thumbs/master.m3u8"
        let streams = HLSThumbnails.imageStreams(in: try Self.text("hls-thumbs/master.m3u8"), base: master)
        // The fixture declares its largest sheet's bits over a sheet's 20 s (make-network-fixtures'
        // sheet_bandwidth): read from the sheets this release's encoder made.
        let sheets = TestEnvironment.fixture("net/hls-thumbs/thumbs")
        let largest = try FileManager.default.contentsOfDirectory(atPath: sheets).filter { $0.hasSuffix(".jpg") }
            .map { try FileManager.default.attributesOfItem(atPath: sheets + "/" + $0)[.size] as? Int ?? 0 }.max() ?? 0
        #expect(largest > 0)
        #expect(streams == [HLSImageStream(uri: Self.host + "hls-thumbs/thumbs/index.m3u8", bandwidth: (largest * 8 + 19) / 20,
                                           width: 160, height: 90, codecs: "jpeg")])
        // The video variant is still what the master parser sees.
        #expect(HLSMasterPlaylist.parse(try Self.text("hls-thumbs/master.m3u8"), base: master)?.variants.count == 1)
        let stream = try #require(HLSThumbnails.choose(streams))
        let track = try #require(HLSThumbnails.track(inPlaylist: try Self.text("hls-thumbs/thumbs/index.m3u8"), base: stream.uri, stream: stream))
        #expect(track.origin == .hls)
        #expect(track.sheets.map(\.url) == [Self.host + "hls-thumbs/thumbs/tile1.jpg", Self.host + "hls-thumbs/thumbs/tile2.jpg"])
        #expect(track.sheets.map(\.start) == [0, 20])
        #expect(track.sheets.map(\.duration) == [20, 10])
        #expect(track.sheets.map(\.tileCount) == [10, 5])
        #expect(track.end == 30)
        // 10 s: thumbnail 5 of the first sheet, the first cell of its second row.
        let ten = try #require(track.tile(at: 10))
        #expect(ten.sheet.url.hasSuffix("tile1.jpg") && ten.index == 5 && ten.start == 10)
        #expect(ten.rect(sheetWidth: 800, sheetHeight: 180) == PixelRect(x: 0, y: 90, width: 160, height: 90))
        // Past the end: the last thumbnail that has a picture (the fifth of the half-full sheet,
        // not the black cell at the layout's end).
        for t in [29.0, 29.999, 30.0, 31.0, 1e9, .infinity] {
            let last = try #require(track.tile(at: t))
            #expect(last.sheet.url.hasSuffix("tile2.jpg") && last.index == 4, "t = \(t)")
            #expect(last.rect(sheetWidth: 800, sheetHeight: 180) == PixelRect(x: 640, y: 0, width: 160, height: 90))
            #expect(last.start == 28 && last.end == 30)
        }
        #expect(track.tile(at: .nan)?.index == 0)
    }

    // MARK: DASH edge cases

    @Test func dashOneRowLayoutAndPartialLastSheet() throws {
        // 25 s of 10×1 sheets of 10 s: 1 s thumbnails, the third sheet covers 5 s.
        let text = Self.mpd(Self.imageSet(template: #"duration="10000" timescale="1000""#, size: #"width="1280" height="72""#, tile: "10x1"),
                            duration: "PT25S")
        let track = try #require(DASHThumbnails.track(in: text, base: Self.host + "a/m.mpd"))
        #expect(track.sheets.count == 3)
        #expect(track.sheets.map(\.duration) == [10, 10, 5])
        #expect(track.sheets.map(\.tileCount) == [10, 10, 5])
        let tile = try #require(track.tile(at: 17.5))
        #expect(tile.sheet.url == Self.host + "a/thumbs/tile2.jpg" && tile.index == 7 && tile.row == 0 && tile.column == 7)
        #expect(tile.rect(sheetWidth: 1280, sheetHeight: 72) == PixelRect(x: 7 * 128, y: 0, width: 128, height: 72))
        #expect(track.tile(at: 99)?.index == 4)
        #expect(track.tile(at: 99)?.sheet.url.hasSuffix("tile3.jpg") == true)
    }

    @Test func dashWithoutTilePropertyIsOneThumbnailPerImage() throws {
        let text = Self.mpd("""
            <AdaptationSet contentType="image" mimeType="image/png">
              <SegmentTemplate media="img-$Number%04d$.png" duration="5" startNumber="0"/>
              <Representation id="i" bandwidth="1" width="320" height="180"/>
            </AdaptationSet>
            """, duration: "PT12S")
        let track = try #require(DASHThumbnails.track(in: text, base: Self.host + "m.mpd"))
        #expect(track.sheets.map(\.url) == ["img-0000.png", "img-0001.png", "img-0002.png"].map { Self.host + $0 })
        #expect(track.sheets.allSatisfy { $0.columns == 1 && $0.rows == 1 && $0.tileWidth == 320 })
        #expect(track.tile(at: 11)?.start == 10 && track.tile(at: 11)?.end == 12)
    }

    @Test func dashGuidelinesSchemeSupplementalPropertyAndRepresentationID() throws {
        let text = Self.mpd("""
            <AdaptationSet mimeType="image/jpeg">
              <SegmentTemplate media="$RepresentationID$/$Number$.jpg" duration="30" startNumber="7"/>
              <Representation id="small" bandwidth="1" width="640" height="360">
                <SupplementalProperty schemeIdUri="http://dashif.org/guidelines/thumbnail_tile" value="4x4"/>
              </Representation>
              <Representation id="big" bandwidth="2" width="1280" height="720">
                <SupplementalProperty schemeIdUri="http://dashif.org/guidelines/thumbnail_tile" value="4x4"/>
              </Representation>
            </AdaptationSet>
            """, duration: "PT60S")
        // 160 px and 320 px thumbnails: 320 wanted → big; 100 wanted → small; 1000 → the widest.
        let big = try #require(DASHThumbnails.track(in: text, base: Self.host + "m.mpd", preferredWidth: 320))
        #expect(big.sheets.map(\.url) == [Self.host + "big/7.jpg", Self.host + "big/8.jpg"])
        #expect(big.sheets[0].tileWidth == 320 && big.sheets[0].tileHeight == 180)
        #expect(big.sheets[0].tileDuration == 30.0 / 16)
        let small = try #require(DASHThumbnails.track(in: text, base: Self.host + "m.mpd", preferredWidth: 100))
        #expect(small.sheets[0].url == Self.host + "small/7.jpg")
        #expect(DASHThumbnails.track(in: text, base: Self.host + "m.mpd", preferredWidth: 1000)?.sheets[0].url == Self.host + "big/7.jpg")
    }

    @Test func dashSegmentTimelineWithTimeAndRepeats() throws {
        let text = Self.mpd("""
            <AdaptationSet contentType="image">
              <Representation id="t" bandwidth="1" width="500" height="100" mimeType="image/jpeg">
                <EssentialProperty schemeIdUri="http://dashif.org/thumbnail_tile" value="5x1"/>
                <SegmentTemplate media="s/$Time$.jpg" timescale="1000" presentationTimeOffset="1000">
                  <SegmentTimeline><S t="1000" d="10000" r="1"/><S d="5000" r="-1"/></SegmentTimeline>
                </SegmentTemplate>
              </Representation>
            </AdaptationSet>
            """, duration: "PT30S")
        let track = try #require(DASHThumbnails.track(in: text, base: Self.host + "x/m.mpd"))
        // 0–10, 10–20, then 5 s sheets to the end (r=-1): 20–25, 25–30.
        #expect(track.sheets.map(\.start) == [0, 10, 20, 25])
        #expect(track.sheets.map(\.url) == ["1000", "11000", "21000", "26000"].map { Self.host + "x/s/\($0).jpg" })
        #expect(track.sheets.map(\.tileDuration) == [2, 2, 1, 1])
        #expect(track.tile(at: 23.5)?.index == 3)
    }

    @Test func dashBaseURLChainAndAbsoluteURLs() throws {
        let text = """
            <MPD type="static" mediaPresentationDuration="PT20S">
              <BaseURL>http://cdn.example/root/</BaseURL>
              <Period><BaseURL>period/</BaseURL>
                <AdaptationSet contentType="image"><BaseURL>set/</BaseURL>
                  <SegmentTemplate media="t$Number$.jpg" duration="20"/>
                  <Representation id="r" bandwidth="1" width="100" height="100"><BaseURL>rep/</BaseURL></Representation>
                </AdaptationSet>
                <AdaptationSet contentType="image">
                  <SegmentTemplate media="https://img.example/abs/$Number$.jpg?sig=a&amp;b=1" duration="20"/>
                  <Representation id="q" bandwidth="1" width="50" height="50"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let near = try #require(DASHThumbnails.track(in: text, base: Self.host + "m.mpd", preferredWidth: 100))
        #expect(near.sheets.map(\.url) == ["http://cdn.example/root/period/set/rep/t1.jpg"])
        let absolute = try #require(DASHThumbnails.track(in: text, base: Self.host + "m.mpd", preferredWidth: 10))
        #expect(absolute.sheets.map(\.url) == ["https://img.example/abs/1.jpg?sig=a&b=1"])
    }

    @Test func dashLocalManifestResolvesPaths() throws {
        let track = try #require(DASHThumbnails.track(in: Self.mpd(Self.imageSet()), base: "/media/show/manifest.mpd"))
        #expect(track.sheets.map(\.url) == ["/media/show/thumbs/tile1.jpg", "/media/show/thumbs/tile2.jpg"])
    }

    /// A network manifest naming anything but http(s) for a sheet has no track (a remote
    /// manifest must never make the player read a local file).
    @Test(arguments: ["file:///etc/passwd?$Number$", "file:$Number$.jpg", "data:image/jpeg;base64,AAAA$Number$",
                      "ftp://host/t$Number$.jpg", "pipe:0$Number$"])
    func dashForeignSchemesAreRefused(media: String) throws {
        let text = Self.mpd(Self.imageSet(media: media))
        #expect(DASHThumbnails.track(in: text, base: Self.host + "m.mpd") == nil)
        let viaBase = Self.mpd(Self.imageSet(), extra: "").replacingOccurrences(of: "<Period id=\"0\" start=\"PT0S\">",
                                                                              with: "<Period id=\"0\" start=\"PT0S\"><BaseURL>file:///etc/</BaseURL>")
        #expect(DASHThumbnails.track(in: viaBase, base: Self.host + "m.mpd") == nil)
    }

    @Test(arguments: [
        Self.imageSet(tile: "0x2"), Self.imageSet(tile: "-1x2"), Self.imageSet(tile: "5x"), Self.imageSet(tile: "100000x100000"),
        Self.imageSet(tile: "257x1"), Self.imageSet(tile: "99999999999999999999x1"),
        Self.imageSet(template: #"duration="0""#), Self.imageSet(template: #"duration="-20""#),
        Self.imageSet(template: #"duration="20" timescale="0""#), Self.imageSet(template: #"duration="20" timescale="-1""#),
        Self.imageSet(template: #"duration="1" timescale="1000000""#),   // 40 million sheets
        Self.imageSet(template: ""),                                      // neither duration nor timeline
        Self.imageSet(media: "t$Unknown$.jpg"), Self.imageSet(media: "t$Number.jpg"), Self.imageSet(media: "t$Number%s$.jpg"),
        Self.imageSet(media: ""),
    ])
    func dashHostileValuesGiveNoTrack(set: String) {
        #expect(DASHThumbnails.track(in: Self.mpd(set), base: Self.host + "m.mpd") == nil)
    }

    @Test func dashHostileDocuments() {
        let base = Self.host + "m.mpd"
        // Live: numbering follows the wall clock.
        #expect(DASHThumbnails.track(in: Self.mpd(Self.imageSet(), extra: #"type="dynamic""#)
            .replacingOccurrences(of: #"type="static" "#, with: ""), base: base) == nil)
        // No duration anywhere: $Number$ sheets cannot be counted.
        #expect(DASHThumbnails.track(in: Self.mpd(Self.imageSet()).replacingOccurrences(of: #"mediaPresentationDuration="PT40S""#, with: ""),
                                     base: base) == nil)
        // Unknown essential property: the representation is skipped.
        #expect(DASHThumbnails.track(in: Self.mpd(Self.imageSet()).replacingOccurrences(
            of: "</Representation>", with: #"<EssentialProperty schemeIdUri="urn:example:drm" value="1"/></Representation>"#), base: base) == nil)
        // A timeline repeating past the cap, a negative time, a zero duration.
        for timeline in [#"<S t="0" d="1" r="99999999"/>"#, #"<S t="-5" d="10"/>"#, #"<S t="0" d="0"/>"#, #"<S t="0"/>"#] {
            let set = """
                <AdaptationSet contentType="image"><SegmentTemplate media="$Number$.jpg"><SegmentTimeline>\(timeline)</SegmentTimeline>
                </SegmentTemplate><Representation id="r" bandwidth="1" width="10" height="10"/></AdaptationSet>
                """
            #expect(DASHThumbnails.track(in: Self.mpd(set), base: base) == nil, "\(timeline)")
        }
        // Not XML, not an MPD, cut short, nested absurdly deep.
        for text in ["", "garbage", "<html><body/></html>", String(Self.mpd(Self.imageSet()).prefix(500)),
                     String(repeating: "<a>", count: 100_000)] {
            #expect(DASHThumbnails.track(in: text, base: base) == nil)
        }
        // No image set: no track.
        #expect(DASHThumbnails.track(in: Self.mpd(""), base: base) == nil)
    }

    @Test func isoDurations() {
        #expect(DASHThumbnails.isoDuration("PT40.0S") == 40)
        #expect(DASHThumbnails.isoDuration("PT1H2M3.5S") == 3723.5)
        #expect(DASHThumbnails.isoDuration("P1DT1S") == 86_401)
        #expect(DASHThumbnails.isoDuration("PT0S") == 0)
        for bad in ["", "P", "PT", "40S", "P1Y", "P1M", "PT-5S", "PT1e3S", "PTS", "PT1S2", "P1H", "PT99999999999S"] {
            #expect(DASHThumbnails.isoDuration(bad) == nil, "\(bad)")
        }
    }

    @Test func templateExpansion() {
        #expect(DASHThumbnails.expand("a/$RepresentationID$-$Number%05d$-$Time$-$Bandwidth$$$.jpg", id: "r1", number: 42, time: 9000, bandwidth: "15416")
                == "a/r1-00042-9000-15416$.jpg")
        #expect(DASHThumbnails.expand("$Number%3d$", id: "", number: 7, time: 0, bandwidth: "") == "  7")
        #expect(DASHThumbnails.expand("$Number%99d$", id: "", number: 7, time: 0, bandwidth: "") == nil)
        #expect(DASHThumbnails.expand("$RepresentationID%05d$", id: "x", number: 7, time: 0, bandwidth: "") == nil)
    }

    // MARK: HLS edge cases

    static func playlist(_ body: String, end: Bool = true) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:20\n#EXT-X-VERSION:7\n#EXT-X-IMAGES-ONLY\n\(body)\n\(end ? "#EXT-X-ENDLIST\n" : "")"
    }

    @Test func hlsOneRowAbsoluteURLAndNoTilesTag() throws {
        let text = Self.playlist("""
            #EXTINF:12,
            #EXT-X-TILES:RESOLUTION=120x68,LAYOUT=6x1,DURATION=2
            https://cdn.example/s/1.jpg
            #EXTINF:4.5,
            ../single.png
            """)
        let track = try #require(HLSThumbnails.track(inPlaylist: text, base: Self.host + "th/a/index.m3u8"))
        #expect(track.sheets.map(\.url) == ["https://cdn.example/s/1.jpg", Self.host + "th/single.png"])
        #expect(track.sheets[0].columns == 6 && track.sheets[0].rows == 1 && track.sheets[0].tileWidth == 120)
        // Without EXT-X-TILES an image is one thumbnail for its whole EXTINF (size unknown).
        #expect(track.sheets[1].columns == 1 && track.sheets[1].tileDuration == 4.5 && track.sheets[1].tileWidth == nil)
        #expect(track.tile(at: 7)?.rect(sheetWidth: 720, sheetHeight: 68) == PixelRect(x: 360, y: 0, width: 120, height: 68))
        #expect(track.tile(at: 15)?.sheet.url.hasSuffix("single.png") == true)
        #expect(track.tile(at: 15)?.rect(sheetWidth: 200, sheetHeight: 100) == PixelRect(x: 0, y: 0, width: 200, height: 100))
    }

    /// Without DURATION, a tile lasts the sheet's EXTINF over its cells; the stream's
    /// RESOLUTION stands in for a missing one.
    @Test func hlsTileDurationAndSizeDefaults() throws {
        let text = Self.playlist("#EXTINF:20,\n#EXT-X-TILES:LAYOUT=5x2\nt.jpg")
        let stream = HLSImageStream(uri: Self.host + "i.m3u8", width: 160, height: 90)
        let track = try #require(HLSThumbnails.track(inPlaylist: text, base: stream.uri, stream: stream))
        #expect(track.sheets[0].tileDuration == 2 && track.sheets[0].tileWidth == 160 && track.sheets[0].tileHeight == 90)
    }

    @Test func hlsForeignSchemesAreRefused() {
        for uri in ["file:///etc/passwd", "FILE:/etc/passwd", "data:image/png;base64,AAAA", "pipe:3"] {
            let text = Self.playlist("#EXTINF:10,\n\(uri)")
            #expect(HLSThumbnails.track(inPlaylist: text, base: Self.host + "i.m3u8") == nil, "\(uri)")
        }
        // The master's image playlist URI itself.
        let master = "#EXTM3U\n#EXT-X-IMAGE-STREAM-INF:RESOLUTION=160x90,URI=\"file:///etc/passwd\"\n"
        let streams = HLSThumbnails.imageStreams(in: master, base: Self.host + "m.m3u8")
        #expect(streams.count == 1 && !SpriteTrack.allowed(streams[0].uri, base: Self.host + "m.m3u8"))
        // A local playlist may name paths.
        #expect(HLSThumbnails.track(inPlaylist: Self.playlist("#EXTINF:10,\nt.jpg"), base: "/srv/th/i.m3u8")?.sheets[0].url == "/srv/th/t.jpg")
    }

    @Test(arguments: [
        "#EXTINF:-5,\nt.jpg", "#EXTINF:0,\nt.jpg", "#EXTINF:nan,\nt.jpg", "#EXTINF:inf,\nt.jpg", "#EXTINF:1e300,\nt.jpg",
        "t.jpg",                                                    // no EXTINF
        "#EXTINF:10,\n#EXT-X-TILES:LAYOUT=0x1\nt.jpg", "#EXTINF:10,\n#EXT-X-TILES:LAYOUT=5x-2\nt.jpg",
        "#EXTINF:10,\n#EXT-X-TILES:LAYOUT=1000x1000\nt.jpg", "#EXTINF:10,\n#EXT-X-TILES:LAYOUT=axb\nt.jpg",
        "#EXTINF:10,\n#EXT-X-TILES:LAYOUT=2x2,DURATION=0\nt.jpg", "#EXTINF:10,\n#EXT-X-TILES:LAYOUT=2x2,DURATION=-1\nt.jpg",
        "#EXTINF:10,\n#EXT-X-TILES:LAYOUT=2x2,RESOLUTION=0x90\nt.jpg", "#EXTINF:10,\n#EXT-X-TILES:RESOLUTION=99999x90\nt.jpg",
        "#EXTINF:10,\n#EXT-X-BYTERANGE:1000@0\nt.jpg",
    ])
    func hlsHostileValuesGiveNoTrack(body: String) {
        #expect(HLSThumbnails.track(inPlaylist: Self.playlist(body), base: Self.host + "i.m3u8") == nil)
    }

    @Test func hlsLiveAndNonPlaylists() {
        // A live image playlist (no ENDLIST, not VOD): its times do not start at the media's 0.
        #expect(HLSThumbnails.track(inPlaylist: Self.playlist("#EXTINF:10,\nt.jpg", end: false), base: Self.host + "i.m3u8") == nil)
        #expect(HLSThumbnails.track(inPlaylist: "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:10,\nt.jpg\n", base: Self.host + "i.m3u8") != nil)
        #expect(HLSThumbnails.track(inPlaylist: "<MPD/>", base: Self.host + "i.m3u8") == nil)
        #expect(HLSThumbnails.imageStreams(in: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", base: Self.host + "m.m3u8").isEmpty)
        #expect(HLSThumbnails.imageStreams(in: "#EXTM3U\n#EXT-X-IMAGE-STREAM-INF:RESOLUTION=160x90\n", base: Self.host + "m.m3u8").isEmpty)
        // Several streams: the narrowest at least as wide as wanted.
        let master = """
            #EXTM3U
            #EXT-X-IMAGE-STREAM-INF:RESOLUTION=640x360,URI="big.m3u8"
            #EXT-X-IMAGE-STREAM-INF:RESOLUTION=160x90,URI="small.m3u8"
            #EXT-X-IMAGE-STREAM-INF:RESOLUTION=320x180,URI="mid.m3u8"
            """
        let streams = HLSThumbnails.imageStreams(in: master, base: Self.host + "m.m3u8")
        #expect(HLSThumbnails.choose(streams, preferredWidth: 320)?.uri == Self.host + "mid.m3u8")
        #expect(HLSThumbnails.choose(streams, preferredWidth: 100)?.uri == Self.host + "small.m3u8")
        #expect(HLSThumbnails.choose(streams, preferredWidth: 4000)?.uri == Self.host + "big.m3u8")
    }

    // MARK: geometry

    @Test func tileRectangleAgainstTheDecodedSheet() {
        let sheet = SpriteSheet(url: "s", start: 0, duration: 20, columns: 5, rows: 2, tileWidth: 160, tileHeight: 90, tileDuration: 2)
        func rect(_ index: Int, _ w: Int, _ h: Int) -> PixelRect? {
            SpriteTile(sheet: sheet, index: index, start: 0, end: 2).rect(sheetWidth: w, sheetHeight: h)
        }
        #expect(rect(9, 800, 180) == PixelRect(x: 640, y: 90, width: 160, height: 90))
        // A last sheet cropped after its first row: the first row's cells, none below.
        #expect(rect(3, 800, 90) == PixelRect(x: 480, y: 0, width: 160, height: 90))
        #expect(rect(5, 800, 90) == nil)
        // Stored at twice the declared size: the picture divided by the layout.
        #expect(rect(6, 1600, 360) == PixelRect(x: 320, y: 180, width: 320, height: 180))
        // Smaller than one cell: nothing sensible to cut.
        #expect(rect(0, 3, 1) == nil)
        // No declared size: the picture over the layout.
        var bare = sheet
        bare.tileWidth = nil
        bare.tileHeight = nil
        #expect(SpriteTile(sheet: bare, index: 7, start: 0, end: 2).rect(sheetWidth: 500, sheetHeight: 100) == PixelRect(x: 200, y: 50, width: 100, height: 50))
    }

    @Test func xmlReader() throws {
        let doc = try #require(ManifestXML.parse("""
            <?xml version="1.0"?>
            <!DOCTYPE MPD [ <!ENTITY x "boom"> ]>
            <!-- <MPD fake="1"/> -->
            <mpd:MPD xmlns:mpd="urn:x" a='single &amp; &#65;&#x42; &x; &unknown'>
              <BaseURL><![CDATA[http://h/<b>/]]></BaseURL>
              <mpd:Period/>
              <Period></Period>
            </mpd:MPD>
            """))
        #expect(doc.name == "MPD")
        #expect(doc["a"] == "single & AB &x; &unknown")
        #expect(doc.first("BaseURL")?.text == "http://h/<b>/")
        #expect(doc.children("Period").count == 2)
        #expect(ManifestXML.parse("<a b=c/>") == nil)
        #expect(ManifestXML.parse("<a b=\"c/>") == nil)
        #expect(ManifestXML.parse("<a><b></a>")?.children.map(\.name) == ["b"])
    }

    @Test func sheetCacheIsLRUWithinItsCaps() {
        var cache = SpriteSheetCache(byteLimit: 300, countLimit: 3)
        func sheet(_ bytes: Int) -> DecodedSheet { DecodedSheet(width: bytes / 3, height: 1, pixels: [UInt8](repeating: 0, count: bytes)) }
        cache.insert(sheet(90), for: "a")
        cache.insert(sheet(90), for: "b")
        cache.insert(sheet(90), for: "c")
        _ = cache.sheet("a")                      // a is now the most recent
        cache.insert(sheet(90), for: "d")         // count cap: b (the oldest) goes
        #expect(cache.sheet("b") == nil && cache.sheet("a") != nil && cache.count == 3 && cache.bytes == 270)
        cache.insert(sheet(210), for: "e")        // byte cap: c and d go (a was used last)
        #expect(cache.sheet("c") == nil && cache.sheet("d") == nil && cache.sheet("a") != nil && cache.bytes == 300)
        cache.insert(sheet(301), for: "f")        // larger than the cap: not kept, nothing dropped
        #expect(cache.sheet("f") == nil && cache.bytes == 300)
    }

    @Test func boxScaleAverages() {
        // 4×2 → 2×1: each output pixel is the mean of a 2×2 block.
        let src: [UInt8] = [0, 0, 0, 100, 100, 100, 200, 0, 0, 200, 0, 0,
                            0, 0, 0, 100, 100, 100, 0, 0, 200, 0, 0, 200]
        #expect(SpriteSheetStills.boxScale(src, width: 4, height: 2, to: 2, 1) == [50, 50, 50, 100, 0, 100])
        let flat = [UInt8](repeating: 77, count: 160 * 90 * 3)
        #expect(SpriteSheetStills.boxScale(flat, width: 160, height: 90, to: 100, 56).allSatisfy { $0 == 77 })
    }
}
