import AetherEngine
@testable import AetherStructure
import AetherTestSupport
import Foundation
import Testing

/// A DASH manifest in the inspector's Container tab (issue 33, item 2): its periods, sets and
/// representations as our reader reads them, and its events in time order on the presentation
/// timeline — within budgets, sanitised, and never fatal. Tier: unit.
struct ManifestStructureTests {
    static let host = "http://media.example/dash/"

    static func mpd(_ periods: String) -> [UInt8] {
        Array("""
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT20S">\(periods)</MPD>
            """.utf8)
    }

    static func period(_ id: String, start: Int, events: String) -> String {
        """
        <Period id="\(id)" start="PT\(start)S" duration="PT10S">\(events)
          <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f">
            <SegmentTemplate timescale="1" duration="2" media="\(id)-$Number$.m4s" initialization="\(id)-init.m4s"/>
            <Representation id="v\(id)" bandwidth="800000" width="640" height="360"/>
          </AdaptationSet>
        </Period>
        """
    }

    static func tree(_ parser: ManifestStructureParser) -> [String: [StructureNode]] {
        var out: [String: [StructureNode]] = [:]
        for node in parser.top().nodes { out[node.name] = parser.children(of: node).nodes }
        return out
    }

    @Test func eventsAreListedInTimeOrderOnThePresentationTimeline() throws {
        let bytes = Self.mpd(Self.period("a", start: 0, events: """
            <EventStream schemeIdUri="urn:scte:scte35:2013:xml" value="1" timescale="90000" presentationTimeOffset="90000">
              <Event presentationTime="540000" duration="180000" id="7">splice&#x1b;[2J out</Event>
            </EventStream>
            """) + Self.period("b", start: 10, events: """
            <EventStream schemeIdUri="urn:dvb:iptv:rating:2014:15" value="1" timescale="10"><Event presentationTime="25" id="1" messageData="PG"/></EventStream>
            """))
        let parser = try ManifestStructureParser(bytes: bytes, base: Self.host + "m.mpd")
        let top = parser.top().nodes.map(\.name)
        #expect(top == ["MPD", "Period a", "Period b", "Events"], "\(top)")
        let events = try #require(Self.tree(parser)["Events"])
        func field(_ node: StructureNode, _ name: String) -> String? { node.fields.first { $0.name == name }?.value }
        // 540000 − 90000 at 90 kHz = 5 s into the first period; 25 at 10 Hz = 2.5 s into the second (12.5 s).
        #expect(events.map { field($0, "time") } == ["5.000 s", "12.500 s"])
        #expect(events.map { field($0, "scheme") } == ["urn:scte:scte35:2013:xml", "urn:dvb:iptv:rating:2014:15"])
        #expect(field(events[0], "duration") == "2.000 s" && field(events[0], "message") == "splice out")
        #expect(field(events[1], "message") == "PG" && field(events[1], "period") == "2")
        let video = try #require(Self.tree(parser)["Period b"]?.first)
        #expect(video.name == "AdaptationSet video" && parser.children(of: video).nodes.map(\.name) == ["Representation vb"])
    }

    @Test func hostileEventsAreBoundedAndNeverFatal() throws {
        let many = String(repeating: #"<Event presentationTime="1"/>"#, count: ManifestStructureParser.maxEvents + 50)
        let bytes = Self.mpd(Self.period("a", start: 0, events: """
            <EventStream schemeIdUri="urn:x" timescale="1">\(many)<Event presentationTime="-5" id="bad"/><Event presentationTime="99999999999999999999"/></EventStream>
            """))
        let parser = try ManifestStructureParser(bytes: bytes, base: Self.host + "m.mpd")
        let node = try #require(parser.top().nodes.first { $0.name == "Events" })
        #expect(parser.children(of: node).nodes.count == ManifestStructureParser.maxEvents)
        #expect(node.summary?.contains("\(ManifestStructureParser.maxEvents + 52) events") == true, "\(node.summary ?? "")")
        // A manifest our reader refuses still shows: the refusal is the MPD node's damage.
        let refused = try ManifestStructureParser(bytes: Array(#"<MPD type="static"><Period><AdaptationSet><Representation id="x" bandwidth="-1"><BaseURL>file:///etc/</BaseURL><SegmentTemplate media="$Number$" duration="x"/></Representation></AdaptationSet><EventStream schemeIdUri="s"><Event presentationTime="3" id="e"/></EventStream></Period></MPD>"#.utf8),
                                                  base: Self.host + "m.mpd")
        let names = refused.top().nodes.map(\.name)
        #expect(names.first == "MPD" && names.contains("Events"), "\(names)")
        #expect(throws: InspectionError.self) { try ManifestStructureParser(bytes: Array("<MPD><Period>".utf8), base: Self.host + "m.mpd") }
    }
}
