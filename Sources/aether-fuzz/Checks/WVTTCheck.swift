import AetherMedia
import AetherSubtitles
import Foundation

/// The fuzz target over ``WVTTReader`` (`aether-fuzz wvtt`): the input is a 2-byte big-endian
/// length, an init section of that length, then one media segment, read alone (placed at 0 s,
/// and with a 1000 Hz track when the init section is refused) and joined with itself placed at
/// 2 s. Checks what the reader promises: finite times inside 0…``WebVTTJoin/maxSeconds``, an end
/// not before its start, no blank line or `-->` in a cue's text, settings on one line, the cue
/// budget.
enum WVTTCheck {
    @discardableResult
    static func run(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 2 else { return 0 }
        let length = min(bytes.count - 2, Int(bytes[0]) << 8 | Int(bytes[1]))
        let head = Array(bytes[2..<(2 + length)]), segment = Array(bytes[(2 + length)...])
        var limits = WVTTReader.Limits()
        limits.cues = 5000
        limits.samplesPerRun = 20_000
        func check(_ cues: [WebVTTJoin.Cue]) -> Int {
            precondition(cues.count <= limits.cues, "past the cue budget")
            for cue in cues {
                precondition(cue.start.isFinite && cue.end.isFinite && cue.start >= 0 && cue.end <= WebVTTJoin.maxSeconds && cue.end >= cue.start,
                             "an unusable cue time")
                precondition(!cue.text.contains("\n\n") && !cue.text.contains("-->") && !cue.text.isEmpty, "a cue text a document cannot carry")
                precondition(!cue.settings.contains("\n") && !cue.settings.contains("-->"), "settings on more than one line")
            }
            return cues.count
        }
        var found = 0
        let track = (try? WVTTReader.track(initialization: head, limits: limits)) ?? WVTTReader.Track(timescale: 1000)
        if let cues = try? WVTTReader.cues(segment: segment, track: track, start: 0, limits: limits) { found += check(cues) }
        if let cues = try? WVTTReader.cues(initialization: head, segments: [(segment, 0), (segment, 2)], limits: limits) {
            found += check(cues)
            found += WebVTTJoin.document(cues, shift: 0).utf8.count
        }
        return found
    }
}
