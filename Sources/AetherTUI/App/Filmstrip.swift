import AetherEngine
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

extension TUIApp {
    func openFilmstrip() {
        guard let duration = player.duration, duration > 0, player.hasVideo else {
            osd("nothing to show in a filmstrip")
            return
        }
        if !player.isPaused { player.togglePause() }
        cancelScrub()
        let width = max(12, min(24, layout.columns / 5))
        let count = max(1, min(7, (layout.columns + 1) / (width + 1)))
        let chapters = (player.mediaInfo?.chapters ?? []).map(\.start)
        let times = Filmstrip.times(now: player.currentTime, duration: duration, chapters: chapters, count: count)
        guard !times.isEmpty else { return }
        let now = player.currentTime
        let byChapter = chapters.count >= 2
        // The chapter playing (the last that started), else the nearest position.
        let selection = byChapter ? (times.lastIndex { $0 <= now + 0.01 } ?? 0)
                                  : times.indices.min { abs(times[$0] - now) < abs(times[$1] - now) } ?? 0
        previewFetcher()?.requestStrip(times, exact: byChapter)
        view.filmstrip = Filmstrip(times: times, selection: selection, chapters: byChapter, width: width)
        screen.dirty = true
    }

    func closeFilmstrip() {
        view.filmstrip = nil
        screen.dirty = true
    }

    /// UI loop: filmstrip thumbnails that arrived.
    func pollFilmstrip() {
        let arrived = previews?.takeStrip() ?? []
        guard var strip = view.filmstrip, !arrived.isEmpty else { return }
        for (time, image) in arrived {
            guard let slot = strip.times.firstIndex(where: { abs($0 - time) < 0.0005 }) else { continue }
            view.previewStamp += 1
            strip.pictures[slot] = VideoOutput.StillPicture(width: image.width, height: image.height, pixels: image.pixels)
            if !strip.chapters, image.seconds.isFinite { strip.shown[slot] = max(0, image.seconds) }
            strip.stamps[slot] = view.previewStamp
        }
        view.filmstrip = strip
        screen.dirty = true
    }

    /// Where each thumbnail goes: a centred row standing on the progress bar, all as tall as
    /// the tallest needs (at most a third of the screen).
    func filmstripPlacements(_ strip: Filmstrip) -> [(slot: Int, label: CellRect, placement: Placement)] {
        let maxRows = max(3, (layout.rows - 3) / 3)
        return strip.times.indices.compactMap { slot in
            guard let picture = strip.pictures[slot],
                  let spot = stillPlacement(picture, width: strip.width, column: strip.column(of: slot, screenColumns: layout.columns),
                                            maxRows: maxRows)
            else { return nil }
            return (slot, spot.label, spot.placement)
        }
    }

    /// The stills the output draws for the filmstrip.
    func filmstripStills(_ strip: Filmstrip) -> [VideoOutput.Still] {
        filmstripPlacements(strip).compactMap { item in
            guard let picture = strip.pictures[item.slot], let stamp = strip.stamps[item.slot] else { return nil }
            return VideoOutput.Still(placement: item.placement, stamp: stamp, picture: picture)
        }
    }
}
