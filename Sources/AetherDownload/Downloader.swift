import AetherBase
import AetherMedia
import AetherStreaming
import AetherSubtitles
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where a download stands, after each segment (for the progress bar).
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the segments on disk (kept from an earlier run and fetched in this one).
    public var bytes: Int64 = 0
    /// Bytes fetched by this run.
    public var fetched: Int64 = 0
    public var segmentsDone = 0
    public var segmentsTotal = 0
    /// 0…1, by the bytes each segment is expected to have (its duration × its track's rate).
    public var fraction = 0.0
    /// Bytes per second over this run.
    public var rate = 0.0
    /// Seconds left at this run's pace (nil until something was fetched).
    public var eta: Double?
    /// Network retries so far (a transfer broke and was resumed).
    public var retries = 0
    /// `video`, `audio fra`, `subtitle eng` … (unsanitised: the caller cleans it).
    public var track = ""
}

/// What a finished download did.
public struct DownloadSummary: Sendable, Equatable {
    public var output = ""
    /// Segments found good on disk from an earlier run (not fetched again).
    public var kept = 0
    /// Segments fetched by this run.
    public var fetched = 0
    /// Journal entries whose files were missing or did not match (fetched again).
    public var damaged = 0
    /// Why an earlier run's state was not used (nil when there was none or it was used).
    public var discarded: String?
    public var bytes: Int64 = 0
    public var seconds = 0.0
    public var retries = 0
    public var requests = 0
    /// Streams in the output.
    public var streams = 0
    /// What was left out of the output, one line each (a subtitle track that turned out not to
    /// be WebVTT, a later period that cannot go on in its stream).
    public var notes: [String] = []
}

/// Fetches a ``DownloadPlan``'s segments (HLS or DASH: see ``DownloadPlanner``) through the player's network reader (``ResilientInput``:
/// resume at the byte after a drop, backoff and retries, deadlines, the header and protocol
/// rules), decrypts AES-128 segments, keeps them in `OUTPUT.part/` with a journal so a second
/// run continues where an interrupted one stopped, and remuxes them into `OUTPUT`.
///
/// Used from one thread (the command's). ``interrupt`` cancels it from any thread (Ctrl-C):
/// the segment in flight is dropped, everything before it stays for the next run.
public final class Downloader {
    public let output: String
    public let interrupt: InterruptToken
    private let session: NetworkSession
    /// Byte ranges the resource ended inside of (``fetch(_:limit:range:)``), for the note.
    private var shortRanges = 0

    /// Largest playlist read (as the player's playlist budget).
    static let playlistLimit = Int(NetworkSession.manifestBudget)
    /// Largest key accepted (an AES-128 key is 16 bytes).
    static let keyLimit = 64
    /// Largest subtitle segment, and all of a track's joined.
    static let subtitleSegmentLimit = 4 << 20
    static let subtitleTrackLimit = 64 << 20

    /// - Parameter options: libavformat protocol options (``SourceOptions/make(network:)``).
    public init(output: String, network: NetworkSettings, options: [String: String], interrupt: InterruptToken) {
        self.output = output
        self.interrupt = interrupt
        session = NetworkSession(settings: network, interrupt: interrupt, options: options, failsSource: false)
    }

    public var networkStatus: NetworkStatus { session.monitor.status }

    /// Largest `SegmentBase` index read (as the player's).
    static let indexLimit = 16 << 20

    /// The plan for `url`, an HLS playlist or a DASH manifest (only http and https sources).
    public func plan(url: String, request: DownloadRequest) throws(DownloadError) -> DownloadPlan {
        let scheme = NetworkSettings.scheme(of: url)
        guard scheme == "http" || scheme == "https" else {
            throw DownloadError("only http and https sources can be downloaded")
        }
        return try DownloadPlanner.plan(url: url, request: request) { (u: String, range: HLSMediaPlaylist.ByteRange?) throws(DownloadError) -> [UInt8] in
            try self.fetch(u, limit: range == nil ? Self.playlistLimit : Self.indexLimit, range: range)
        }
    }

    /// Downloads and remuxes `plan`; throws one line (``DownloadError``) on failure or interrupt,
    /// leaving what was fetched for the next run.
    public func run(_ plan: DownloadPlan, progress: (DownloadProgress) -> Void) throws(DownloadError) -> DownloadSummary {
        let started = interrupt.clock.seconds
        var summary = DownloadSummary()
        summary.output = output
        guard !FileManager.default.fileExists(atPath: output) else {
            throw DownloadError("'\(TextSanitizer.clean(output))' exists: not overwritten")
        }
        let container = Remuxer.container(for: output)
        let fingerprint = plan.fingerprint(format: container)
        let part = PartDirectory(output: output)
        try part.prepare()

        // The earlier run's journal: parsed strictly, then every entry checked against its file.
        var good: [DownloadState.Entry] = []
        if let journal = part.readJournal() {
            do {
                let state = try DownloadState.parse(journal, plan: plan, fingerprint: fingerprint)
                for entry in state.done.values {
                    if part.verify(entry) { good.append(entry) } else { summary.damaged += 1 }
                }
            } catch {
                summary.discarded = error.message
                try part.reset()
            }
        }
        try part.startJournal(fingerprint: fingerprint, entries: good)
        var done = Set(good.map { DownloadState.Key(track: $0.track, segment: $0.segment) })
        summary.kept = good.count

        // Progress by expected bytes.
        func expected(_ track: DownloadTrack, _ seconds: Double) -> Double {
            let rate = track.bitrate > 0 ? track.bitrate : (track.kind == .video ? 1_000_000 : track.kind == .audio ? 128_000 : 1000)
            return max(1, seconds * Double(rate) / 8)
        }
        let total = plan.tracks.reduce(0.0) { sum, t in sum + t.segments.reduce(0.0) { $0 + expected(t, $1.duration) } }
        var state = DownloadProgress()
        state.segmentsTotal = plan.segmentCount
        var doneExpected = 0.0, fetchedExpected = 0.0
        for entry in good where entry.segment >= 0 {
            let t = plan.tracks[entry.track]
            doneExpected += expected(t, t.segments[entry.segment].duration)
            state.bytes += Int64(entry.bytes)
            state.segmentsDone += 1
        }
        func report(_ label: String) {
            let elapsed = max(1e-3, interrupt.clock.seconds - started)
            state.fraction = state.segmentsDone == state.segmentsTotal ? 1 : min(1, doneExpected / total)
            state.rate = Double(state.fetched) / elapsed
            state.eta = fetchedExpected > 0 ? elapsed * (total - doneExpected) / fetchedExpected : nil
            state.retries = session.monitor.status.retries
            state.track = label
            progress(state)
        }
        report(plan.tracks.first.map(Self.label) ?? "")

        do {
            try fetchAll(plan, part: part, done: &done, summary: &summary) { entry, fetchedBytes in
                let t = plan.tracks[entry.track]
                state.bytes += Int64(entry.bytes)
                state.fetched += Int64(fetchedBytes)
                guard entry.segment >= 0 else { return }
                state.segmentsDone += 1
                let e = expected(t, t.segments[entry.segment].duration)
                doneExpected += e
                fetchedExpected += e
                report(Self.label(t))
            }
        } catch {
            // Nothing on disk: no state worth keeping.
            if done.isEmpty { part.remove() }
            throw error
        }
        return try remux(plan, part: part, container: container, summary: summary, bytes: state.bytes, started: started)
    }

    /// Fetches every segment not in `done`, storing and journaling each; `landed` is told of
    /// each (its entry and the bytes fetched for it).
    private func fetchAll(_ plan: DownloadPlan, part: PartDirectory, done: inout Set<DownloadState.Key>, summary: inout DownloadSummary,
                          landed: (DownloadState.Entry, Int) -> Void) throws(DownloadError) {
        var keys: [String: [UInt8]] = [:]
        for (t, track) in plan.tracks.enumerated() {
            if let initURI = track.initSection, !done.contains(.init(track: t, segment: -1)) {
                let data = try fetch(initURI, limit: DownloadState.maxSegmentBytes, range: track.initRange)
                let entry = try part.store(track: t, segment: -1, data)
                try part.record(entry)
                done.insert(.init(track: t, segment: -1))
                landed(entry, data.count)
            }
            for (s, segment) in track.segments.enumerated() where !done.contains(.init(track: t, segment: s)) {
                var data = try fetch(segment.uri, limit: track.kind == .subtitle ? Self.subtitleSegmentLimit : DownloadState.maxSegmentBytes,
                                     range: segment.byteRange)
                let fetchedBytes = data.count
                if let key = segment.key, let keyURI = key.uri {
                    if keys[keyURI] == nil { keys[keyURI] = try fetch(keyURI, limit: Self.keyLimit) }
                    do throws(AES128Decryptor.Failure) {
                        let decryptor = try AES128Decryptor(key: keys[keyURI] ?? [])
                        data = try decryptor.decrypt(data, iv: key.iv ?? AES128Decryptor.sequenceIV(segment.sequence))
                    } catch {
                        throw DownloadError("\(TextSanitizer.clean(segment.uri)): \(error.message)")
                    }
                }
                if interrupt.isCancelled { throw DownloadError("interrupted") }
                let entry = try part.store(track: t, segment: s, data)
                try part.record(entry)
                done.insert(.init(track: t, segment: s))
                summary.fetched += 1
                landed(entry, fetchedBytes)
            }
        }
    }

    /// Remuxes the stored segments into `output` and removes the part directory.
    private func remux(_ plan: DownloadPlan, part: PartDirectory, container: String, summary: DownloadSummary, bytes: Int64,
                       started: Double) throws(DownloadError) -> DownloadSummary {
        var summary = summary
        // Remux into a file inside the part directory, then move it into place.
        var inputs: [RemuxInput] = []
        var chains: [SegmentChainInput] = []
        for (t, track) in plan.tracks.enumerated() where track.kind != .subtitle {
            var files = track.initSection != nil ? [part.segmentPath(track: t, segment: -1)] : []
            files += track.segments.indices.map { part.segmentPath(track: t, segment: $0) }
            let moves = track.segments.map(\.timeOffset)
            let chain = try SegmentChainInput(files: files, offsets: moves.allSatisfy { $0 == 0 } ? []
                                              : (track.initSection != nil ? [0] : []) + moves)
            chains.append(chain)
            inputs.append(try RemuxInput(track: track, reader: chain, io: chain.context, formatName: nil))
        }
        // The parts of a spliced HLS playlist placed on its timeline (``HLSSplice``), each
        // chain of parts from its first part's own timestamps.
        var splice = HLSSplice()
        for (n, input) in inputs.enumerated() {
            guard let start = input.track.timelineStart, let first = input.startSeconds else { continue }
            if !input.track.continues { splice = HLSSplice() }
            chains[n].move(by: splice.shift(for: .init(sequence: input.track.segments.first?.sequence ?? n, start: start, discontinuity: n), first: first))
        }
        // The earliest media on the one timeline (a DASH period's moved by its offset), of the
        // tracks that begin a stream.
        let shift = inputs.filter { !$0.track.continues }
            .compactMap { input in input.startSeconds.map { $0 + (input.track.segments.first?.timeOffset ?? 0) } }.min() ?? 0
        for (t, track) in plan.tracks.enumerated() where track.kind == .subtitle {
            var segments: [[UInt8]] = []
            var size = 0
            for s in track.segments.indices {
                guard let data = part.readFile(part.segmentPath(track: t, segment: s), limit: Self.subtitleSegmentLimit) else {
                    throw DownloadError("a downloaded subtitle segment is missing")
                }
                size += data.count
                guard size <= Self.subtitleTrackLimit else { throw DownloadError("the subtitles are larger than \(Self.subtitleTrackLimit >> 20) MiB") }
                segments.append(data)
            }
            // Text that is not WebVTT after all: this track is left out, the rest is written.
            let cues: [WebVTTJoin.Cue]
            do { cues = try WebVTTJoin.cues(segments, offsets: track.segments.map(\.cueOffset)) } catch {
                summary.notes.append("subtitles\(track.language.map { " in '\(TextSanitizer.clean($0))'" } ?? "") left out: \(error.message)")
                continue
            }
            let document = WebVTTJoin.document(cues, shift: shift)
            let memory: MemoryInput
            do { memory = try MemoryInput(Array(document.utf8)) } catch { throw DownloadError("out of memory (subtitles)") }
            inputs.append(try RemuxInput(track: track, reader: memory, io: memory.context, formatName: "webvtt"))
        }
        let temporary = part.path + "/output.tmp"
        unlink(temporary)
        let remuxed = try Remuxer.run(inputs, shift: shift, to: temporary, container: container, interrupt: interrupt)
        inputs.removeAll()
        // A segment file gone between its fetch and now: the output would be cut short.
        if let lost = chains.lazy.compactMap(\.failed).first {
            throw DownloadError("cannot read the downloaded segment '\(TextSanitizer.clean(lost))'; run again to fetch it anew")
        }
        chains.removeAll()
        try Self.place(temporary, at: output)
        part.remove()
        let status = session.monitor.status
        summary.streams = remuxed.streams
        summary.notes += remuxed.notes
        if shortRanges > 0 {
            summary.notes.append("\(shortRanges) byte range(s) ran past the end of their resource: taken to its end, as playback does")
        }
        summary.bytes = bytes
        summary.retries = status.retries
        summary.requests = status.requests
        summary.seconds = interrupt.clock.seconds - started
        return summary
    }

    /// Moves the finished file into place without replacing anything that appeared there
    /// meanwhile: a hard link fails when the name exists; where links are not supported, rename.
    static func place(_ temporary: String, at output: String) throws(DownloadError) {
        if link(temporary, output) == 0 {
            unlink(temporary)
            return
        }
        guard errno != EEXIST else { throw DownloadError("'\(TextSanitizer.clean(output))' exists: not overwritten") }
        guard rename(temporary, output) == 0 else {
            throw DownloadError("cannot move the output into place: \(String(cString: strerror(errno)))")
        }
    }

    static func label(_ track: DownloadTrack) -> String {
        [track.kind.rawValue, track.language ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// A resource's bytes through the session's one bounded read (`NetworkSession.readWhole`:
    /// resume, retries), only `range` of it when given (a request from its offset, read up to its
    /// length); only http and https. A range the resource ends inside of (a `sidx` whose last
    /// reference runs past the file, a `mediaRange` one byte too long) is what the resource has
    /// to its end, as playback reads it: counted and logged, not a failure (a broken transfer
    /// is resumed by the read; nothing at all is).
    func fetch(_ url: String, limit: Int, range: HLSMediaPlaylist.ByteRange? = nil) throws(DownloadError) -> [UInt8] {
        try DownloadPlanner.allowed(url)
        if interrupt.isCancelled { throw DownloadError("interrupted") }
        let limit = range.map { min(limit, $0.length) } ?? limit
        if let range, range.length > limit { throw DownloadError("\(TextSanitizer.clean(url)): a byte range larger than \(limit) bytes") }
        var options = session.options
        if let range, range.offset > 0 { options["offset"] = String(range.offset) }
        let data: [UInt8]
        do { data = try session.readWhole(url, options: options, limit: limit, length: range?.length) } catch {
            if error == NetworkSession.tooLarge(limit) { throw DownloadError("\(TextSanitizer.clean(url)): larger than \(limit) bytes") }
            throw failure(url, error)
        }
        if let range, data.count != range.length {
            guard !data.isEmpty else { throw DownloadError("\(TextSanitizer.clean(url)): nothing at its byte range") }
            shortRanges += 1
            AppLog.write("download", "\(TextSanitizer.clean(url)): the resource ends \(range.length - data.count) bytes before its byte range does (offset \(range.offset), length \(range.length)): taken to its end")
        }
        return data
    }

    private func failure(_ url: String, _ error: FFmpegError) -> DownloadError {
        if interrupt.isCancelled { return DownloadError("interrupted") }
        if let why = session.failure { return DownloadError(why) }
        return DownloadError("\(TextSanitizer.clean(url)): \(error.message)")
    }
}
