import AetherBase
import AetherMedia
import AetherStreaming
import AetherStructure
import Foundation

/// The parsers of remote playlists and manifests run on untrusted bytes in one call each, for the
/// fuzzers (`aether-fuzz hls|dash`) and the replay of their regression files.
public enum ManifestCheck {
    static let base = "http://fuzz.invalid/stream/index"

    /// An HLS master or media playlist through every HLS reader: the master parser and variant
    /// choice, the image streams and an image media playlist. Returns how much it found.
    @discardableResult
    public static func hls(_ bytes: [UInt8]) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var found = 0
        if let master = HLSMasterPlaylist.parse(text, base: base + ".m3u8") {
            found += master.variants.count + master.renditions.count
            for preference in [VariantPreference.auto, .min, .max, .atMost(1_000_000)] {
                if let k = VariantChooser.choose(master.variants, preference: preference, range: .auto) {
                    found += master.needsRenditions(master.variants[k]) ? 1 : 0
                    _ = master.variants[k].summary
                    // Bit-rate switching's ladder and one decision over its rates.
                    let ladder = VariantChooser.ladder(master.variants, anchor: k, limit: AdaptivePolicy().maxRungs)
                    let rates = ladder.map { Double(master.variants[$0].bandwidth) }
                    if let here = ladder.firstIndex(of: k) {
                        found += AdaptiveRule.decide(current: here, rates: rates, estimate: 2e6, recent: 1e6, buffer: 3,
                                                     segmentSeconds: 2, sinceSwitch: 10, policy: AdaptivePolicy())?.rung ?? 0
                    }
                }
            }
        }
        // A byte-range playlist rewritten for switching, and the ranges read back from its URLs.
        if let rewritten = HLSMediaPlaylist.rangesAsURLs(text, base: base + ".m3u8"),
           let media = try? HLSMediaPlaylist.parse(rewritten, base: base + ".m3u8") {
            found += media.segments.compactMap { HLSMediaPlaylist.rangedURL($0.uri)?.range.length }.count
        }
        found += HLSMediaPlaylist.rangedURL(text)?.range.offset ?? 0
        // As a media playlist (what bit-rate switching reads of each variant).
        if let media = try? HLSMediaPlaylist.parse(text, base: base + ".m3u8") {
            found += media.segments.count + (media.isSwitchable ? 1 : 0)
            if let last = media.segments.last {
                found += media.index(startingAt: last.start, tolerance: 0.5) ?? 0
                // Live switching: by sequence number, by date, and the numbering check.
                found += media.index(sequence: last.sequence) ?? 0
                found += AdaptiveSwitcher.match(last, in: media, byDate: true) ?? 0
                found += AdaptiveSwitcher.needsDates(media, anchor: media) ? 1 : 0
            }
            // The switcher over it: a reload of the anchor and a segment planned from a second
            // variant whose playlist is the same text (never waiting).
            let a = base + "a.m3u8", b = base + "b.m3u8"
            let switcher = AdaptiveSwitcher(variants: [StreamVariant(uri: a, bandwidth: 1_000_000), StreamVariant(uri: b, bandwidth: 2_000_000)],
                                            ladder: [0, 1], anchor: 0, anchorPlaylist: media, policy: AdaptivePolicy(), clock: ManualTimeSource().source,
                                            loader: { _ in text })
            _ = PlaylistOffer.offer(a, Array(text.utf8), to: switcher, splice: nil)
            _ = PlaylistOffer.offer(b, Array(text.utf8), to: switcher, splice: nil)
            switcher.arm()
            if let first = media.segments.first, let plan = switcher.plan(for: first.uri) {
                switcher.downloaded(plan, bytes: 1 << 20, seconds: 0.1)
                found += switcher.abandon(plan, loaded: 1 << 10, elapsed: 1e9) == nil ? 0 : 1
            }
        }
        // The splice's timeline (served twice: a live reload of the same text), each segment
        // placed with an odd first timestamp.
        let splice = HLSSplice()
        _ = PlaylistOffer.offer(base + ".m3u8", Array(text.utf8), to: nil, splice: splice)
        _ = PlaylistOffer.offer(base + ".m3u8", Array(text.utf8), to: nil, splice: splice)
        if let media = try? HLSMediaPlaylist.parse(text, base: base + ".m3u8") {
            for (k, segment) in media.segments.prefix(64).enumerated() {
                if let place = splice.place(of: segment.uri) {
                    found += splice.shift(for: place, first: [0, -1e9, 1e12, .nan, 95443.7][k % 5]).isFinite ? 1 : 0
                }
            }
        }
        let streams = HLSThumbnails.imageStreams(in: text, base: base + ".m3u8")
        found += streams.count
        if let track = HLSThumbnails.track(inPlaylist: text, base: base + ".m3u8", stream: HLSThumbnails.choose(streams)) {
            found += track.sheets.count
            for t in [-1.0, 0, 1.5, 1e9, .nan, .infinity] {
                if let tile = track.tile(at: t) { _ = tile.rect(sheetWidth: 1600, sheetHeight: 900) }
            }
            _ = track.summary
        }
        return found
    }

    /// A DASH manifest through every DASH reader: the pre-check libxml2's copy also passes
    /// (xml_guard.c), the XML reader and the thumbnail track.
    @discardableResult
    public static func dash(_ bytes: [UInt8]) -> Int {
        var found = ManifestXML.refusal(bytes) == nil ? 1 : 0
        let text = String(decoding: bytes, as: UTF8.self)
        if let root = ManifestXML.parse(text) { found += root.children.count }
        if let track = DASHThumbnails.track(in: text, base: base + ".mpd") {
            found += track.sheets.count
            for t in [-1.0, 0, 1.5, 1e9, .nan] {
                if let tile = track.tile(at: t) { _ = tile.rect(sheetWidth: 1600, sheetHeight: 900) }
            }
        }
        // The inspector's view of it: events within their budget.
        if let parser = try? ManifestStructureParser(bytes: bytes, base: base + ".mpd") {
            for node in parser.top().nodes {
                let children = parser.children(of: node).nodes
                precondition(children.count <= max(ManifestStructureParser.maxEvents, 100_000), "children past the budget")
                found += children.count
            }
        }
        return found
    }

    /// An MPD through the DASH playback reader: the MPD parser (as a remote manifest and as a
    /// local one, static timing and live timing), its joined tracks, and the input's own bytes
    /// as the `sidx` every on-demand representation asks for. Checks what the parser promises:
    /// segment budgets, finite times, http(s) only from a remote manifest.
    @discardableResult
    public static func mpd(_ bytes: [UInt8]) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var found = 0
        var limits = DASHManifest.Limits()
        limits.segmentsPerRepresentation = 5000
        limits.totalSegments = 20_000
        for (base, now) in [(base + ".mpd", 1e9), ("/fuzz/local.mpd", 1.7e9)] {
            guard var m = try? DASHManifest.parse(text, base: base, now: now, limits: limits) else { continue }
            try? m.resolveIndexes(limits: limits) { resource in
                guard let range = resource.range, range.offset < bytes.count else { return nil }
                return Array(bytes[Int(range.offset)..<min(bytes.count, Int(range.offset + min(range.length, 1 << 20)))])
            }
            var total = 0
            for period in m.periods {
                for set in period.adaptationSets {
                    for rep in set.representations {
                        precondition(rep.segments.count <= limits.segmentsPerRepresentation, "past the segment budget")
                        total += rep.segments.count
                        for s in rep.segments {
                            precondition(s.start.isFinite && s.duration.isFinite && s.duration > 0, "an unusable segment time")
                            if base.hasPrefix("http") {
                                precondition(s.resource.url.hasPrefix("http://") || s.resource.url.hasPrefix("https://"), "a local URL from a remote manifest")
                            }
                        }
                    }
                }
            }
            precondition(total <= limits.totalSegments, "past the manifest's segment budget")
            found += total + m.tracks.count
            // The translation into HLS playlists: every one reads back as what it was made from.
            for preference in [VariantPreference.auto, .min] {
                guard let p = try? DASHPlaylists.make(m, url: base, preference: preference, range: .auto, audioLanguages: ["eng"]) else { continue }
                precondition(p.mediaPlaylists.count + 1 == p.documents.count, "a media playlist that does not read back")
                if let master = p.documents[p.masterURL] {
                    // A rate the manifest does not give is written BANDWIDTH=0: libavformat, the only
                    // reader of a translated master, takes it; the HLS reader leaves such a variant out.
                    let unknownRate = master.contains("BANDWIDTH=0\n") || master.contains("BANDWIDTH=0,")
                    precondition(unknownRate || HLSMasterPlaylist.parse(master, base: p.masterURL) != nil, "a master that does not read back")
                }
                found += p.documents.count
                // A live manifest translated again after itself: the numbers carry on and read back.
                if m.isDynamic, let again = try? DASHPlaylists.make(m, url: base, preference: preference, range: .auto,
                                                                    audioLanguages: ["eng"], previous: p) {
                    for (uri, numbering) in again.numbering {
                        precondition((0...Int(Int32.max)).contains(numbering.first), "a media sequence out of range")
                        precondition(again.mediaPlaylists[uri]?.mediaSequence == numbering.first, "a media sequence that does not read back")
                    }
                    found += again.numbering.count
                }
            }
        }
        if let index = try? SegmentIndex.parse(bytes, at: 0) { found += index.references.count }
        return found
    }
}

