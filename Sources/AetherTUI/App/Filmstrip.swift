import AetherInput
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// `B` while paused: a row of thumbnails around the current position (or the chapters, when
/// the file has them) standing on the progress bar; ← → choose, Enter seeks there, Esc or `B`
/// closes. Each thumbnail is a still of the active output, like the scrub preview.
struct Filmstrip {
    var times: [Double]
    /// The media time of the picture each slot shows (a keyframe at or before its time):
    /// the label says it and Enter lands on it, so what is shown is what is labelled.
    var shown: [Int: Double] = [:]
    var selection: Int
    /// The thumbnails are the chapters: each labelled with its chapter's start, Enter seeks
    /// there (as PgDn does), its picture the frame at that moment (not the keyframe before it,
    /// which may be the previous chapter's).
    var chapters = false
    /// Thumbnails that arrived, by slot, and their stamps (a new picture is drawn again).
    var pictures: [Int: VideoOutput.StillPicture] = [:]
    var stamps: [Int: Int] = [:]
    /// Columns per thumbnail.
    var width: Int

    /// Columns the row takes (thumbnails one column apart).
    var totalWidth: Int { times.count * (width + 1) - 1 }

    /// The first column of thumbnail `slot` in a row centred on a screen `columns` wide.
    func column(of slot: Int, screenColumns columns: Int) -> Int {
        max(0, (columns - totalWidth) / 2) + slot * (width + 1)
    }

    /// Positions for `count` thumbnails: the chapters around the current one when there are at
    /// least two, else steps of up to 10 s (the clip split evenly when it is short) centred on
    /// `now`; kept inside the file, without repeats.
    static func times(now: Double, duration: Double, chapters: [Double], count: Int) -> [Double] {
        guard duration > 0, count > 0 else { return [] }
        if chapters.count >= 2 {
            let current = chapters.lastIndex { $0 <= now + 0.01 } ?? 0
            let first = min(max(0, current - count / 2), max(0, chapters.count - count))
            return Array(chapters[first..<min(chapters.count, first + count)])
        }
        let step = min(10, duration / Double(count))
        var times: [Double] = []
        let start = min(max(0, now - step * Double(count / 2)), max(0, duration - step * Double(count)))
        for i in 0..<count {
            let t = min(duration - 0.001, start + step * Double(i))
            if times.last.map({ t - $0 > 0.01 }) ?? true { times.append(t) }
        }
        return times
    }
}
