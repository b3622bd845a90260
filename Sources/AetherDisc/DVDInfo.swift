/// A DVD-Video disc's titles as its IFO files describe them (the DVD-Video format's published
/// layout, big-endian): the video manager (`VIDEO_TS.IFO`: the title search pointers, which
/// title set and which of its titles each title is) and each title set (`VTS_nn_0.IFO`: the
/// part-of-title table, the program chains with their playback times, programs and cells, the
/// audio and subpicture streams' languages). Pure and hostile-input safe: every offset is
/// checked against the file, every count against a budget; a title, chain or cell that breaks a
/// rule is left out (``leftOut``), the rest kept.
public struct DVDInfo: Sendable, Equatable {
    /// An IFO file is at most this large.
    public static let maxIFOBytes = 1 << 20
    public static let maxTitles = 99
    public static let maxChains = 999
    public static let maxChapters = 999

    public var titles: [DVDTitle] = []
    /// The title sets' program chains as read (the inspector's view).
    public var titleSets: [DVDTitleSet] = []
    public var leftOut = 0

    /// The longest title (its playback time, not its size); the first of equals.
    public var mainTitle: DVDTitle? { titles.max { $0.duration < $1.duration || ($0.duration == $1.duration && $0.number > $1.number) } }

    /// Reads the manager `vmg` and the title sets `vts(n)` (nil: not on the disc).
    public static func parse(vmg: [UInt8], vts: (Int) -> [UInt8]?) -> DVDInfo {
        var info = DVDInfo()
        guard vmg.count >= 0x100, vmg.count <= maxIFOBytes, Array(vmg[0..<12]) == Array("DVDVIDEO-VMG".utf8) else { return info }
        let table = DiscBytes.be32(vmg, 0xC4) * 2048
        let count = DiscBytes.be16(vmg, table)
        guard table > 0, count <= maxTitles, table + 8 + 12 * count <= vmg.count else {
            info.leftOut += 1
            return info
        }
        var sets: [Int: DVDTitleSet] = [:]
        for i in 0..<count {
            let e = table + 8 + 12 * i
            let setNumber = Int(vmg[e + 6]), inSet = Int(vmg[e + 7])
            guard (1...99).contains(setNumber) else { info.leftOut += 1; continue }
            if sets[setNumber] == nil {
                guard let bytes = vts(setNumber), let set = DVDTitleSet.parse(bytes, number: setNumber) else {
                    info.leftOut += 1
                    continue
                }
                sets[setNumber] = set
                info.leftOut += set.leftOut
            }
            guard let set = sets[setNumber], let title = set.title(inSet, number: i + 1, angles: Int(vmg[e + 1])) else {
                info.leftOut += 1
                continue
            }
            info.titles.append(title)
        }
        info.titleSets = sets.keys.sorted().compactMap { sets[$0] }
        return info
    }
}

/// A title: the chains it plays in order, its length, its chapters' start times, its cells'
/// sectors in its title set's VOB files, and the languages of its streams.
public struct DVDTitle: Sendable, Equatable {
    /// 1-based, as the disc numbers it.
    public let number: Int
    public let titleSet: Int
    public let angles: Int
    public let duration: Double
    public let chapters: [Double]
    public let cells: [DVDCell]
    /// Per audio stream (its number in the title set), the ISO 639 code when the disc says one.
    public let audioLanguages: [String?]
    public let subtitleLanguages: [String?]
}

/// A cell: sectors `first...last` of the title set's VOBs (`VTS_nn_1.VOB` onwards, joined).
public struct DVDCell: Sendable, Equatable {
    public let first: Int
    public let last: Int
    public let duration: Double
}

/// A program chain: its playback time, its programs' entry cells (1-based), its cells.
public struct DVDChain: Sendable, Equatable {
    public let duration: Double
    public let programs: [Int]
    public let cells: [DVDCell]
}

/// One title set's IFO (`VTS_nn_0.IFO`).
public struct DVDTitleSet: Sendable, Equatable {
    public let number: Int
    public let chains: [DVDChain]
    /// Per title of the set, its parts: (chain, program), 1-based.
    public let parts: [[(chain: Int, program: Int)]]
    public let audioLanguages: [String?]
    public let subtitleLanguages: [String?]
    public var leftOut = 0

    public static func == (a: DVDTitleSet, b: DVDTitleSet) -> Bool {
        a.number == b.number && a.chains == b.chains && a.audioLanguages == b.audioLanguages
            && a.subtitleLanguages == b.subtitleLanguages && a.parts.map { $0.map { [$0.chain, $0.program] } } == b.parts.map { $0.map { [$0.chain, $0.program] } }
    }

    static func parse(_ b: [UInt8], number: Int) -> DVDTitleSet? {
        guard b.count >= 0x300, b.count <= DVDInfo.maxIFOBytes, Array(b[0..<12]) == Array("DVDVIDEO-VTS".utf8) else { return nil }
        var leftOut = 0
        func language(_ at: Int, present: Bool) -> String? {
            guard present, at + 2 <= b.count else { return nil }
            let code = b[at..<(at + 2)]
            guard code.allSatisfy({ (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) }) else { return nil }
            return String(decoding: code, as: UTF8.self).lowercased()
        }
        // (A full table of 32 subpicture entries ends at 0x316: past a short file's end.)
        func byte(_ at: Int) -> UInt8 { at < b.count ? b[at] : 0 }
        let audio = (0..<min(8, DiscBytes.be16(b, 0x202))).map { i in language(0x204 + 8 * i + 2, present: (byte(0x204 + 8 * i) >> 2) & 3 == 1) }
        let subs = (0..<min(32, DiscBytes.be16(b, 0x254))).map { i in language(0x256 + 6 * i + 2, present: byte(0x256 + 6 * i) & 3 == 1) }
        // The program chains.
        var chains: [DVDChain] = []
        let pgci = DiscBytes.be32(b, 0xCC) * 2048
        let chainCount = DiscBytes.be16(b, pgci)
        if pgci > 0, chainCount <= DVDInfo.maxChains, pgci + 8 + 8 * chainCount <= b.count {
            for i in 0..<chainCount {
                let at = pgci + DiscBytes.be32(b, pgci + 8 + 8 * i + 4)
                guard let chain = chain(b, at: at) else {
                    leftOut += 1
                    chains.append(DVDChain(duration: 0, programs: [], cells: []))
                    continue
                }
                chains.append(chain)
            }
        } else {
            leftOut += 1
        }
        // The part-of-title table: per title, its (chain, program) parts.
        var parts: [[(chain: Int, program: Int)]] = []
        let ptt = DiscBytes.be32(b, 0xC8) * 2048
        let titleCount = DiscBytes.be16(b, ptt)
        let end = ptt + DiscBytes.be32(b, ptt + 4) + 1
        if ptt > 0, titleCount <= DVDInfo.maxTitles, ptt + 8 + 4 * titleCount <= min(end, b.count) {
            for i in 0..<titleCount {
                let from = ptt + DiscBytes.be32(b, ptt + 8 + 4 * i)
                let to = i + 1 < titleCount ? ptt + DiscBytes.be32(b, ptt + 8 + 4 * (i + 1)) : min(end, b.count)
                guard from >= ptt + 8, from <= to, to <= b.count, (to - from) / 4 <= DVDInfo.maxChapters else {
                    leftOut += 1
                    parts.append([])
                    continue
                }
                parts.append(stride(from: from, to: to - 3, by: 4).map { (DiscBytes.be16(b, $0), DiscBytes.be16(b, $0 + 2)) })
            }
        } else {
            leftOut += 1
        }
        return DVDTitleSet(number: number, chains: chains, parts: parts, audioLanguages: audio, subtitleLanguages: subs, leftOut: leftOut)
    }

    /// The chain at `at`: nil when its tables are not inside the file.
    private static func chain(_ b: [UInt8], at p: Int) -> DVDChain? {
        guard p > 0, p + 0xEC <= b.count else { return nil }
        let programCount = Int(b[p + 2]), cellCount = Int(b[p + 3])
        let map = p + DiscBytes.be16(b, p + 0xE6), playback = p + DiscBytes.be16(b, p + 0xE8)
        guard map + programCount <= b.count, playback + 24 * cellCount <= b.count else { return nil }
        var cells: [DVDCell] = []
        for i in 0..<cellCount {
            let c = playback + 24 * i
            let first = DiscBytes.be32(b, c + 8), last = DiscBytes.be32(b, c + 20)
            guard first <= last else { return nil }
            cells.append(DVDCell(first: first, last: last, duration: Self.time(b, c + 4)))
        }
        let programs = (0..<programCount).map { Int(b[map + $0]) }
        guard programs.allSatisfy({ (1...max(1, cellCount)).contains($0) }) else { return nil }
        // Angle blocks: only each block's first angle is played (block type 1; mode 1 starts it).
        let kept = (0..<cellCount).filter { i in
            let category = b[playback + 24 * i]
            return (category >> 4) & 3 != 1 || category >> 6 == 1
        }
        let playedCells = kept.map { cells[$0] }
        // A program's entry cell, renumbered over the cells kept.
        let renumbered = programs.map { entry in (kept.firstIndex { $0 >= entry - 1 } ?? kept.count - 1) + 1 }
        return DVDChain(duration: Self.time(b, p + 4), programs: renumbered, cells: playedCells)
    }

    /// A BCD playback time (hours, minutes, seconds, frames; the frames' top bits say 25 or
    /// 29.97 a second); 0 when a digit is not decimal.
    static func time(_ b: [UInt8], _ at: Int) -> Double {
        guard at + 4 <= b.count else { return 0 }
        func bcd(_ x: UInt8) -> Int? { x >> 4 <= 9 && x & 0xF <= 9 ? Int(x >> 4) * 10 + Int(x & 0xF) : nil }
        guard let h = bcd(b[at]), let m = bcd(b[at + 1]), let s = bcd(b[at + 2]), let f = bcd(b[at + 3] & 0x3F) else { return 0 }
        let rate = b[at + 3] >> 6 == 3 ? 30000.0 / 1001 : b[at + 3] >> 6 == 1 ? 25 : 0
        return Double(h * 3600 + m * 60 + s) + (rate > 0 ? Double(f) / rate : 0)
    }

    /// Title `inSet` (1-based) of this set as the disc's title `number`.
    func title(_ inSet: Int, number: Int, angles: Int) -> DVDTitle? {
        guard inSet >= 1, inSet <= parts.count, !parts[inSet - 1].isEmpty else { return nil }
        var order: [Int] = []
        for part in parts[inSet - 1] where !order.contains(part.chain) { order.append(part.chain) }
        guard order.allSatisfy({ $0 >= 1 && $0 <= chains.count }) else { return nil }
        var starts: [Int: Double] = [:]
        var total = 0.0
        for n in order {
            starts[n] = total
            total += chains[n - 1].duration
        }
        var chapters: [Double] = []
        for part in parts[inSet - 1] {
            let chain = chains[part.chain - 1]
            guard part.program >= 1, part.program <= chain.programs.count else { continue }
            let entry = chain.programs[part.program - 1]
            let time = (starts[part.chain] ?? 0) + chain.cells.prefix(entry - 1).reduce(0) { $0 + $1.duration }
            if chapters.last.map({ time > $0 }) ?? true { chapters.append(time) }
        }
        return DVDTitle(number: number, titleSet: self.number, angles: max(1, angles), duration: total, chapters: chapters,
                        cells: order.flatMap { chains[$0 - 1].cells }, audioLanguages: audioLanguages, subtitleLanguages: subtitleLanguages)
    }
}
