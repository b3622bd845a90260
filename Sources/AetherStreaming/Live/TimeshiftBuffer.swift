import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The kept window of a live stream: every demuxed packet, in order, so that pause, rewind and
/// scrubbing work inside the window while the capture goes on at the live edge.
///
/// Packets are appended (capture thread) into chunks that each begin at an index point (a video
/// keyframe, or every half second of sound without video). Chunks live in memory up to
/// `memoryLimit` bytes in all; older ones are spilled to files in `directory` (deleted when
/// dropped and on ``close()``), at most `diskLimit` bytes of them. The oldest chunks are dropped
/// when they fall out of the window by *played* media time (the sum of the timestamp steps that
/// look like playback, 0 to 5 s: a restart, a wrap at 2^33 ticks or a jump adds nothing, so the
/// window keeps its length in seconds whatever the timestamps do), or by arrival time (twice
/// the window), or when the spill would pass `diskLimit` (or cannot be written): the window is
/// bounded in bytes always. One reader (the demux thread) reads the packets back in order from any index
/// point.
package final class TimeshiftBuffer: Sendable {
    package struct Settings: Sendable {
        /// Seconds of the stream kept behind the live edge.
        var window: Double
        /// Bytes of chunks kept in memory before the oldest spill to disk.
        var memoryLimit: Int
        /// Where spilled chunks go (created when the first one spills).
        var directory: String
        /// Bytes of spilled chunks kept on disk at most.
        var diskLimit = 1 << 30
        /// A chunk is closed at the first index point past this many bytes.
        var chunkBytes = 2 << 20

        package init(window: Double, memoryLimit: Int, directory: String, diskLimit: Int = 1 << 30, chunkBytes: Int = 2 << 20) {
            self.window = window
            self.memoryLimit = memoryLimit
            self.directory = directory
            self.diskLimit = diskLimit
            self.chunkBytes = chunkBytes
        }
    }

    package enum ReadResult {
        case packet
        /// The capture ended (the stream finished, or failed with the message) and the reader
        /// has every packet.
        case end(String?)
        /// `interrupted` said stop (a seek is waiting, or the session stops).
        case interrupted
    }

    private final class Chunk {
        let id: Int
        var bytes: [UInt8]? = []
        var path: String?
        var length = 0
        var firstTime: Double
        var lastTime: Double
        /// The played media time (``Store/played``) at its start and its newest packet.
        let firstPlayed: Double
        var lastPlayed: Double
        /// When the chunk was started (the buffer's clock, seconds).
        let arrival: Double
        init(id: Int, time: Double, played: Double, arrival: Double) {
            self.id = id
            firstTime = time
            lastTime = time
            firstPlayed = played
            lastPlayed = played
            self.arrival = arrival
        }
    }

    private struct IndexPoint {
        var chunk: Int
        var offset: Int
        var time: Double
    }

    private let store: GuardedCondition<Store>

    /// Header of each entry: size, stream, pts, dts, duration, flags, media time.
    private static let headerBytes = 4 + 4 + 8 + 8 + 8 + 4 + 8

    /// What arrival times are read from (chunks age by it past twice the window).
    private let clock: TimeSource

    package init(settings: Settings, clock: TimeSource) {
        store = GuardedCondition(Store(settings: settings))
        self.clock = clock
    }

    /// Deletes the spill directories (`timeshift-PID-N`) of players that are gone (killed before
    /// they could clean up).
    package static func removeStale(in parent: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix("timeshift-") {
            let parts = name.split(separator: "-")
            guard parts.count == 3, let pid = Int32(parts[1]), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
        }
    }

    deinit { close() }

    /// The spill bound: `asked` bytes, but never more than a quarter of the free space of the
    /// file system `directory` is on (or would be: its nearest existing ancestor).
    package static func diskLimit(asked: Int64, directory: String) -> Int {
        var path = directory
        var fs = statvfs()
        while statvfs(path, &fs) != 0 {
            let parent = Paths.deletingLastComponent(path)
            guard !parent.isEmpty, parent != path else { return Int(clamping: max(0, asked)) }
            path = parent
        }
        let free = Double(fs.f_bavail) * Double(fs.f_frsize)
        return Int(saturating: min(Double(max(0, asked)), free / 4))
    }

    // MARK: capture side

    /// Appends `packet` (media time `time`, nil when it has none). `indexPoint`: playback may start
    /// here (a video keyframe; for sound alone the buffer picks points every half second).
    /// `paces`: the packet is of the stream whose timestamps measure played time (the video, or
    /// the sound when there is no video).
    package func append(_ packet: Packet, time: Double?, videoKeyframe: Bool, hasVideo: Bool, paces: Bool = true) {
        let size = packet.size
        guard size >= 0 else { return }
        let now = clock.seconds
        store.update { $0.append(packet, size: size, time: time, videoKeyframe: videoKeyframe, hasVideo: hasVideo, paces: paces, now: now) }
    }

    /// The longest timestamp step taken as played time; a longer one (a jump), like a step back
    /// (a restart, a wrap), adds nothing.
    static let largestPlayedStep = 5.0

    /// The capture is over (nil: the stream ended; else why it failed).
    package func finish(error: String?) {
        store.update {
            $0.ended = true
            $0.failure = error
        }
    }

    // MARK: reader side

    /// Reads the next packet into `packet`, waiting for the capture when the reader has caught
    /// up; `interrupted` is polled while waiting.
    package func read(into packet: Packet, interrupted: () -> Bool) -> ReadResult {
        store.withLock(when: { $0.readable || interrupted() }, recheck: 0.05) { s, _ in
            s.next(into: packet) ?? .interrupted
        }
    }

    /// Moves the reader to the last index point at or before `time` (the first one when `time`
    /// is older than the window) and returns that point's time; nil when nothing is buffered.
    @discardableResult
    package func seek(to time: Double) -> Double? {
        store.withLock { s in
            guard let first = s.index.first else { return nil }
            let point = s.index.last { $0.time <= time } ?? first
            s.readChunk = point.chunk
            s.readOffset = point.offset
            s.readerEvicted = false
            return point.time
        }
    }

    /// The kept window in media seconds (oldest index point ... newest packet), nil when empty.
    package var window: ClosedRange<Double>? {
        store.withLock { s in
            guard let start = s.index.first?.time, let end = s.chunks.last?.lastTime else { return nil }
            return start...max(start, end)
        }
    }

    package var bytes: (memory: Int, disk: Int) { store.withLock { ($0.memoryBytes, $0.spilledBytes) } }

    /// Frees everything and deletes the spill files (and their directory).
    package func close() { store.update { $0.close() } }
}

/// What a ``TimeshiftBuffer`` holds, behind its lock: the chunks, the index, the reader.
extension TimeshiftBuffer {
    private struct Store {
        let settings: Settings
        var chunks: [Chunk] = []
        var index: [IndexPoint] = []
        var nextChunkID = 0
        var memoryBytes = 0
        var spilledBytes = 0
        var lastIndexTime = -Double.infinity
        /// Played media time: the sum of the pacing stream's timestamp steps in 0…5 s.
        var played = 0.0
        var lastPacingTime: Double?
        var ended = false
        var failure: String?
        var closed = false
        /// Reader position: chunk id and byte offset in it.
        var readChunk = 0
        var readOffset = 0
        /// The reader was moved by eviction (it fell out of the window while paused).
        var readerEvicted = false
        var spillDirectoryMade = false
        var readFD: (chunk: Int, fd: Int32)?

        /// `now`: the buffer's clock when the packet came.
        mutating func append(_ packet: Packet, size: Int, time: Double?, videoKeyframe: Bool, hasVideo: Bool, paces: Bool, now: Double) {
            guard !closed else { return }
            let t = time ?? chunks.last?.lastTime ?? 0
            if paces, let time {
                if let last = lastPacingTime, case let step = time - last, step > 0, step <= TimeshiftBuffer.largestPlayedStep { played += step }
                lastPacingTime = time
            }
            let isIndex = time != nil && (hasVideo ? videoKeyframe : t - lastIndexTime >= 0.5)
            if chunks.isEmpty || (isIndex && chunks[chunks.count - 1].length >= settings.chunkBytes) {
                // Nothing can be played before the first index point.
                guard isIndex else { return }
                chunks.append(Chunk(id: nextChunkID, time: t, played: played, arrival: now))
                nextChunkID += 1
            }
            let chunk = chunks[chunks.count - 1]
            if isIndex {
                index.append(IndexPoint(chunk: chunk.id, offset: chunk.length, time: t))
                lastIndexTime = t
            }
            var header = [UInt8]()
            header.reserveCapacity(TimeshiftBuffer.headerBytes)
            func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
            put(UInt32(size))
            put(Int32(packet.streamIndex))
            put(packet.pointer.pointee.pts)
            put(packet.pointer.pointee.dts)
            put(packet.pointer.pointee.duration)
            put(packet.pointer.pointee.flags)
            put(t.bitPattern)
            chunk.bytes?.append(contentsOf: header)
            if size > 0, let data = packet.pointer.pointee.data {
                chunk.bytes?.append(contentsOf: UnsafeBufferPointer(start: data, count: size))
            }
            chunk.length += TimeshiftBuffer.headerBytes + size
            memoryBytes += TimeshiftBuffer.headerBytes + size
            chunk.lastTime = max(chunk.lastTime, t)
            chunk.lastPlayed = played
            evict(now: now)
            spill()
        }

        /// Drops chunks that fell out of the window (never the newest): by played media time, or
        /// by arrival time past twice the window.
        mutating func evict(now: Double) {
            guard let newest = chunks.last?.lastPlayed else { return }
            while chunks.count > 1 {
                let byMedia = newest - chunks[1].firstPlayed > settings.window
                let byArrival = now - chunks[1].arrival > 2 * settings.window
                guard byMedia || byArrival else { break }
                dropOldest()
            }
        }

        /// Drops the oldest chunk (caller holds the lock; never the only one).
        mutating func dropOldest() {
            let doomed = chunks.removeFirst()
            index.removeAll { $0.chunk == doomed.id }
            if let bytes = doomed.bytes { memoryBytes -= bytes.count }
            if let path = doomed.path {
                spilledBytes -= doomed.length
                if readFD?.chunk == doomed.id, let fd = readFD?.fd { closeDescriptor(fd); readFD = nil }
                unlink(path)
            }
            if readChunk == doomed.id {
                readChunk = chunks[0].id
                readOffset = 0
                readerEvicted = true
            }
        }

        /// Moves the oldest chunks in memory to files until the memory limit holds (never the one
        /// being written). Spilled chunks come first in `chunks`; to keep the files within
        /// `diskLimit` the oldest are dropped, and a chunk that does not fit (or cannot be written)
        /// is dropped rather than kept in memory.
        mutating func spill() {
            while memoryBytes > settings.memoryLimit {
                guard let chunk = chunks.dropLast().first(where: { $0.bytes != nil }), let bytes = chunk.bytes else { return }
                while spilledBytes + bytes.count > settings.diskLimit, chunks.count > 1, chunks[0] !== chunk { dropOldest() }
                if spilledBytes + bytes.count > settings.diskLimit {
                    dropThrough(chunk)
                    continue
                }
                if !spillDirectoryMade {
                    try? FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true,
                                                             attributes: [.posixPermissions: 0o700])
                    spillDirectoryMade = true
                }
                let path = settings.directory + "/chunk-\(chunk.id)"
                let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard fd >= 0 else { dropThrough(chunk); continue }  // disk full or gone: memory stays bounded
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                closeDescriptor(fd)
                guard written == bytes.count else {
                    unlink(path)
                    dropThrough(chunk)
                    continue
                }
                chunk.path = path
                chunk.bytes = nil
                memoryBytes -= bytes.count
                spilledBytes += bytes.count
            }
        }

        /// Drops the oldest chunks up to and including `chunk` (never the newest).
        mutating func dropThrough(_ chunk: Chunk) {
            while chunks.count > 1 {
                let first = chunks[0]
                dropOldest()
                if first === chunk { return }
            }
        }

        /// Whether ``next(into:)`` has something to return (a packet, or the end).
        var readable: Bool {
            if closed || ended { return true }
            if let position = chunks.firstIndex(where: { $0.id == readChunk }) {
                return readOffset < chunks[position].length || position + 1 < chunks.count
            }
            return !chunks.isEmpty
        }

        /// Reads the next packet into `packet`; nil when the reader has caught up with the capture.
        mutating func next(into packet: Packet) -> ReadResult? {
            while true {
                if closed { return .end(failure) }
                if let position = chunks.firstIndex(where: { $0.id == readChunk }) {
                    let chunk = chunks[position]
                    if readOffset < chunk.length {
                        guard let entry = entryBytes(chunk, at: readOffset) else { return .end("timeshift: cannot read a spilled chunk") }
                        readOffset += entry.count
                        fill(packet, from: entry)
                        return .packet
                    }
                    if position + 1 < chunks.count {
                        readChunk = chunks[position + 1].id
                        readOffset = 0
                        continue
                    }
                } else if let first = chunks.first {
                    readChunk = first.id
                    readOffset = 0
                    continue
                }
                if ended { return .end(failure) }
                return nil
            }
        }

        /// One entry's bytes (header and payload). Caller holds the lock.
        mutating func entryBytes(_ chunk: Chunk, at offset: Int) -> [UInt8]? {
            if let bytes = chunk.bytes {
                guard offset + TimeshiftBuffer.headerBytes <= bytes.count else { return nil }
                let size = Int(bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) })
                guard offset + TimeshiftBuffer.headerBytes + size <= bytes.count else { return nil }
                return Array(bytes[offset..<(offset + TimeshiftBuffer.headerBytes + size)])
            }
            guard let path = chunk.path else { return nil }
            if readFD?.chunk != chunk.id {
                if let fd = readFD?.fd { closeDescriptor(fd) }
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { readFD = nil; return nil }
                readFD = (chunk.id, fd)
            }
            guard let fd = readFD?.fd else { return nil }
            var header = [UInt8](repeating: 0, count: TimeshiftBuffer.headerBytes)
            guard pread(fd, &header, TimeshiftBuffer.headerBytes, off_t(offset)) == TimeshiftBuffer.headerBytes else { return nil }
            let size = Int(header.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) })
            guard offset + TimeshiftBuffer.headerBytes + size <= chunk.length else { return nil }
            var payload = [UInt8](repeating: 0, count: size)
            if size > 0 { guard pread(fd, &payload, size, off_t(offset + TimeshiftBuffer.headerBytes)) == size else { return nil } }
            return header + payload
        }

        func fill(_ packet: Packet, from entry: [UInt8]) {
            packet.unref()
            entry.withUnsafeBytes { raw in
                let size = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self)))
                if av_new_packet(packet.pointer, Int32(size)) == 0, size > 0 {
                    packet.pointer.pointee.data.update(from: raw.baseAddress!.advanced(by: TimeshiftBuffer.headerBytes).assumingMemoryBound(to: UInt8.self), count: size)
                }
                packet.pointer.pointee.stream_index = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: Int32.self))
                packet.pointer.pointee.pts = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: Int64.self))
                packet.pointer.pointee.dts = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: Int64.self))
                packet.pointer.pointee.duration = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: Int64.self))
                packet.pointer.pointee.flags = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 32, as: Int32.self))
            }
        }

        /// Frees everything and deletes the spill files (and their directory).
        mutating func close() {
            guard !closed else { return }
            closed = true
            if let fd = readFD?.fd { closeDescriptor(fd) }
            readFD = nil
            for chunk in chunks { if let path = chunk.path { unlink(path) } }
            chunks.removeAll()
            index.removeAll()
            memoryBytes = 0
            spilledBytes = 0
            if spillDirectoryMade { rmdir(settings.directory) }
        }
    }
}

/// `close(2)` (the name is taken by the methods above).
@inline(__always) private func closeDescriptor(_ fd: Int32) { _ = Glibc.close(fd) }
