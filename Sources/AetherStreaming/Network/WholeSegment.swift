import AetherBase
import AetherMedia
import CFFmpeg

/// A segment fetched whole for the demuxer and served from memory: a bit-rate plan's (timed for
/// the throughput estimate, given up for a lower variant's when it loads too slowly), a byte
/// range of a variant's file, a spliced playlist's (retimed), or a translated DASH manifest's
/// fMP4 segment rewritten with its init section (``SegmentTransmuxer``). Init sections are
/// fetched once a session and kept (``NetworkSession/Memory/initCache``).
enum WholeSegment {
    /// Init sections kept per session, at most.
    static let initCacheLimit = 64
    /// An init section may be this large.
    static let initSectionLimit = 4 << 20

    /// The bytes of an init section (fetched once, then from the cache).
    private static func initBytes(_ resource: DASHManifest.Resource, session: NetworkSession) throws(FFmpegError) -> [UInt8] {
        let memory = session.memory
        if let known = memory.initCache.withLock({ $0[resource] }) { return known }
        let bytes = try session.readWhole(resource.url, options: resource.rangeOptions(session.options), limit: initSectionLimit)
        memory.initCache.withLock { cache in
            if cache.count >= initCacheLimit { cache.removeAll() }
            cache[resource] = bytes
        }
        return bytes
    }

    /// Fetches a segment whole through a ``ResilientInput`` (resume, retries, counts), times the
    /// download for the throughput estimate, and hands libavformat the bytes from memory; a
    /// segment of a translated DASH manifest (``NetworkSession/Memory/transmuxed``) as MPEG-TS with its init section,
    /// or as Matroska clusters, and a Matroska header made from an init section
    /// (``SegmentTransmuxer``).
    static func open(_ plan: AdaptiveSwitcher.Plan, options: [String: String], measured: Bool = true, requested: String? = nil,
                     session: NetworkSession, into pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        let memory = session.memory, adaptive = session.adaptive, splice = session.splice, clock = session.clock
        if let fetch = memory.transmuxed?(plan.url), fetch.isHeader {
            do throws(FFmpegError) {
                return try session.serve(try SegmentTransmuxer.header(initBytes(fetch.initialization, session: session), as: fetch.carrier, clock: session.clock), into: pb)
            } catch {
                AppLog.write("dash", "\(TextSanitizer.clean(plan.url)): cannot make a Matroska header of the init section: \(error.message)")
                return error.code
            }
        }
        let started = clock.seconds
        // A segment that loads too slowly for the buffer may be given up for a lower variant's.
        var replacement: AdaptiveSwitcher.Plan?
        let carryOn: ((Int, Double) -> Bool)? = measured && adaptive != nil ? { [adaptive] loaded, elapsed in
            replacement = adaptive?.abandon(plan, loaded: loaded, elapsed: elapsed)
            return replacement == nil
        } : nil
        do throws(FFmpegError) {
            let fetch = memory.transmuxed?(plan.url)
            var data: [UInt8]
            do throws(FFmpegError) {
                if let fetch {
                    data = try session.readWhole(fetch.segment.url, options: fetch.segment.rangeOptions(options), limit: NetworkSession.wholeSegmentLimit,
                                         carryOn: carryOn)
                } else if let range = plan.range {
                    // A byte range of a variant's file (the demuxer gets it whole, to its end).
                    let resource = DASHManifest.Resource(url: plan.url, range: .init(offset: Int64(range.offset), length: Int64(range.length)))
                    data = try session.readWhole(plan.url, options: resource.rangeOptions(options), limit: NetworkSession.wholeSegmentLimit, carryOn: carryOn)
                } else {
                    data = try session.readWhole(plan.url, options: options, limit: NetworkSession.wholeSegmentLimit, carryOn: carryOn)
                }
            } catch {
                if let replacement { return open(replacement, options: options, requested: requested, session: session, into: pb) }
                throw error
            }
            if measured, let adaptive { adaptive.downloaded(plan, bytes: data.count, seconds: clock.seconds - started) }
            if let fetch { splice.served(period: fetch.periodStart) }
            if let place = splice.place(of: requested ?? plan.url) { data = try SegmentTransmuxer.retimed(data, clock: session.clock) { splice.shift(for: place, first: $0) } }
            session.monitor.discontinuities(splice.crossings)
            if let fetch {
                let head = try initBytes(fetch.initialization, session: session)
                do throws(FFmpegError) { data = try SegmentTransmuxer.served(data, initialization: head, as: fetch.carrier, clock: session.clock, shift: fetch.timeOffset) } catch {
                    AppLog.write("dash", "\(TextSanitizer.clean(plan.url)): cannot rewrite the segment as \(fetch.carrier == .mpegts ? "MPEG-TS" : "Matroska"): \(error.message)")
                    throw error
                }
            }
            return try session.serve(data, into: pb)
        } catch {
            return error.code
        }
    }
}
