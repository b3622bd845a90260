import AetherBase
import CZlib
#if canImport(Glibc)
import Glibc
#endif

/// Encodes pictures for kitty's graphics protocol: raw pixels in APC strings,
/// `ESC _G <keys> ; <base64> ESC \`, one image id replaced in place every frame.
///
/// - Format: `f=24` (RGB); `f=32` (RGBA) when some pixels must be transparent (the cells an
///   overlay covers), with alpha 0 there and 255 elsewhere. Transparent pixels are written as
///   0,0,0,0, so what the picture had under an overlay does not make a frame differ.
/// - One transmission per frame: `a=T` (transmit and display) with the same image id `i` and
///   placement id `p`, so the terminal replaces the picture instead of piling images up;
///   `q=2` (no replies: they would arrive as input), `C=1` (the cursor stays where it is) and
///   `c`/`r`, the cells the terminal scales the picture to (any picture size fills them); with
///   ``virtual``, `U=1` instead of `C=1`: a virtual placement that placeholder cells show.
/// - Chunks: the base64 payload in pieces of at most 4096 bytes (3072 pixel bytes), `m=1` on all
///   but the last, `m=0` on the last. The first chunk carries every key; the others only `m`
///   and `q` (kitty's spec allows `q` there, and kitty once needed it on every chunk to stay
///   quiet: kitty#3375).
/// - Unchanged frames: the packed pixels are compared with the previous frame's (`memcmp`);
///   equal pixels, size and cells write nothing and report ``Outcome/identical``.
/// - Memory: two packed-pixel buffers (this frame, the last one), sized once per picture size and
///   swapped, never copied; base64 goes straight into the caller's ``ByteBuffer``.
/// - Compression (``compresses``, over a remote link): the packed pixels deflated (zlib level 1,
///   `o=z`) when that makes them at most ``compressionWorthIt`` of their size; a frame that does
///   not shrink that much goes raw, and the next ``compressionPause`` frames are not tried.
/// - Shared memory (``Transmission/sharedMemory``, mpv's `--vo-kitty-use-shm`): the packed
///   pixels go into a new POSIX shared memory object per frame (``SharedMemoryFrame``) and the
///   APC string carries only its name (`t=s`, `S` the size): about 150 bytes through the tty
///   instead of 4/3 of the pixels, no base64. The terminal reads the object and unlinks it;
///   names it has not taken after a while are unlinked here (``SharedMemoryFrames``). When an
///   object cannot be made (`shm_open` fails) or the terminal takes none of them, the encoder
///   sends frames directly from then on and says so once in ``Report/note``.
///
/// Not thread-safe: one encoder belongs to one render thread.
public final class KittyEncoder {
    /// What ``encode(_:columns:rows:transparent:framing:into:)`` did.
    public enum Outcome: Sendable, Equatable {
        case encoded
        /// The terminal already shows this picture: nothing was written.
        case identical
    }

    /// One encode's figures.
    public struct Report: Sendable, Equatable {
        public var outcome: Outcome
        /// Bytes appended.
        public var bytes: Int
        /// APC strings written.
        public var chunks: Int
        /// `f`: 24 (RGB) or 32 (RGBA, some pixels transparent).
        public var format: Int
        /// How the pixels went.
        public var transmission: Transmission = .direct
        /// The payload was deflated (`o=z`).
        public var compressed = false
        /// One line for the log when the transmission changed (shared memory gave up).
        public var note: String? = nil
    }

    /// How the pixels reach the terminal.
    public enum Transmission: String, Sendable, Equatable {
        /// Base64 in the escape sequences (`t=d`), through the tty.
        case direct
        /// A POSIX shared memory object the terminal maps (`t=s`); only its name goes through the tty.
        case sharedMemory = "shared memory"
    }

    /// How each chunk is enclosed: nothing (a terminal of its own), or tmux's passthrough (every
    /// ESC of the chunk doubled, and the cursor moved to the picture inside the wrap).
    public struct Framing: Sendable, Equatable {
        /// Written before each chunk's `ESC _G`.
        public var before: [UInt8]
        /// Written after each chunk's `ESC \`.
        public var after: [UInt8]
        /// The chunk's own ESCs are doubled (inside `DCS tmux;`).
        public var doublesEscapes: Bool

        public init(before: [UInt8] = [], after: [UInt8] = [], doublesEscapes: Bool = false) {
            self.before = before
            self.after = after
            self.doublesEscapes = doublesEscapes
        }

        /// Chunks as they are.
        public static let plain = Framing()

        /// Chunks wrapped for tmux, each placing the picture at the pane's cell (`column`, `row`).
        public static func tmux(_ passthrough: TmuxPassthrough, column: Int, row: Int) -> Framing {
            Framing(before: passthrough.placedOpening(column: column, row: row),
                    after: TmuxPassthrough.placedClosing, doublesEscapes: true)
        }
    }

    /// Largest base64 payload in one chunk (kitty's limit).
    public static let maxChunkPayload = 4096
    /// Pixel bytes per full chunk (4096 base64 characters, no padding).
    static let chunkBytes = maxChunkPayload / 4 * 3

    /// The image id (`i`) every frame replaces; chosen to be unlikely to meet another program's.
    public let imageID: Int
    /// The placement id (`p`).
    public let placementID: Int
    /// Frames make a virtual placement (`U=1`, no cursor, no place on the screen) that
    /// ``KittyPlaceholder`` cells show, instead of a placement at the cursor (`C=1`).
    public var virtual = false

    private var current: UnsafeMutablePointer<UInt8>
    private var previous: UnsafeMutablePointer<UInt8>
    private var bufferCapacity = 0
    /// What `previous` holds: nil when the terminal's picture is unknown.
    private var shown: Shown?
    /// How frames are sent now (shared memory can fall back to direct, never the other way).
    public private(set) var transmission: Transmission
    /// Shared memory frames handed to the terminal (nil when sending directly).
    private var sharedFrames: SharedMemoryFrames?
    /// When a shared-memory frame went out, for reclaiming those the terminal left (a manual clock in tests).
    public let clock: TimeSource
    /// Deflate direct frames (`o=z`) when it pays (a remote terminal: the link is the limit).
    public let compresses: Bool
    /// A frame is sent compressed only when deflate made it at most this share of its size.
    public static let compressionWorthIt = 0.75
    /// Frames not tried after one that did not shrink enough (content that does not compress).
    public static let compressionPause = 48
    private var deflated: UnsafeMutablePointer<UInt8>
    private var deflatedCapacity = 0
    private var compressionSkip = 0

    private struct Shown: Equatable {
        var width: Int
        var height: Int
        var columns: Int
        var rows: Int
        var alpha: Bool
    }

    /// - Parameter transmission: how pixels go to the terminal (``Transmission/sharedMemory``
    ///   only where the terminal can map the objects: the same machine, no multiplexer between).
    /// - Parameter compresses: deflate direct frames (`o=z`) where that shrinks them enough
    ///   (for a terminal over a remote link).
    /// - Parameter clock: when shared-memory frames went out (those the terminal left are reclaimed by it).
    public convenience init(imageID: Int = 0x4165_7468, placementID: Int = 1, transmission: Transmission = .direct,
                            compresses: Bool = false, clock: TimeSource) {
        self.init(imageID: imageID, placementID: placementID, transmission: transmission, sharedMemoryPrefix: nil,
                  compresses: compresses, clock: clock)
    }

    /// - Parameter sharedMemoryPrefix: the start of the objects' names (tests; nil:
    ///   `/aether-kitty-<pid>-<image id>`).
    init(imageID: Int, placementID: Int, transmission: Transmission, sharedMemoryPrefix: String?, compresses: Bool = false,
         clock: TimeSource) {
        self.clock = clock
        self.imageID = max(1, min(Int(UInt32.max), imageID))
        self.placementID = max(1, min(Int(UInt32.max), placementID))
        current = .allocate(capacity: 1)
        previous = .allocate(capacity: 1)
        deflated = .allocate(capacity: 1)
        self.compresses = compresses
        self.transmission = transmission
        if transmission == .sharedMemory {
            // The pid, the image id and a random part: an encoder made for the same image id
            // while an earlier one's names still exist never meets them.
            let unique = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            sharedFrames = SharedMemoryFrames(prefix: sharedMemoryPrefix ?? "/aether-kitty-\(getpid())-\(self.imageID)-\(unique)")
        }
    }

    deinit {
        current.deallocate()
        previous.deallocate()
        deflated.deallocate()
    }

    /// Forgets what the terminal shows: the next frame is sent even if it is the same.
    public func invalidate() { shown = nil }

    /// Appends the APC strings that make the terminal show `image` stretched over `columns` ×
    /// `rows` cells at the cursor (the caller moves it there), with the pixels inside
    /// `transparent` (picture coordinates) left transparent.
    public func encode(_ image: PixelImage, columns: Int, rows: Int, transparent: [PixelRect] = [],
                       framing: Framing = .plain, into output: ByteBuffer) -> Report {
        let picture = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        let alpha = transparent.contains { !$0.intersection(picture).isEmpty }
        let bpp = alpha ? 4 : 3
        let count = image.width * image.height * bpp
        let state = Shown(width: image.width, height: image.height, columns: max(1, columns), rows: max(1, rows), alpha: alpha)
        reserve(count)
        pack(image, alpha: alpha, holes: transparent)
        if state == shown, memcmp(current, previous, count) == 0 {
            return Report(outcome: .identical, bytes: 0, chunks: 0, format: bpp * 8)
        }
        swap(&current, &previous)
        shown = state
        let start = output.count
        var note: String?
        if transmission == .sharedMemory {
            switch writeShared(count: count, state: state, framing: framing, into: output) {
            case .sent:
                return Report(outcome: .encoded, bytes: output.count - start, chunks: 1, format: bpp * 8,
                              transmission: .sharedMemory)
            case .gaveUp(let reason):
                note = "kitty: \(reason); sending frames directly"
                transmission = .direct
                sharedFrames?.reclaimAll()
                sharedFrames = nil
            }
        }
        if let size = deflate(count: count) {
            let chunks = writeChunks(from: deflated, count: size, compressed: true, state: state, framing: framing, into: output)
            return Report(outcome: .encoded, bytes: output.count - start, chunks: chunks, format: bpp * 8,
                          compressed: true, note: note)
        }
        let chunks = writeChunks(from: previous, count: count, compressed: false, state: state, framing: framing, into: output)
        return Report(outcome: .encoded, bytes: output.count - start, chunks: chunks, format: bpp * 8, note: note)
    }

    /// Deflates `previous` (`count` bytes) into `deflated` (zlib `compress2`, level 1); its size
    /// when compressing is on and paid, else nil.
    private func deflate(count: Int) -> Int? {
        guard compresses else { return nil }
        if compressionSkip > 0 {
            compressionSkip -= 1
            return nil
        }
        let bound = Int(compressBound(uLong(count)))
        if bound > deflatedCapacity {
            deflated.deallocate()
            deflated = .allocate(capacity: bound)
            deflatedCapacity = bound
        }
        var size = uLongf(bound)
        let status = compress2(deflated, &size, previous, uLong(count), 1)
        guard status == Z_OK, Double(size) <= Double(count) * Self.compressionWorthIt else {
            compressionSkip = Self.compressionPause
            return nil
        }
        return Int(size)
    }

    /// Appends the delete of this encoder's image and its data (`a=d,d=I`): for teardown, or
    /// before the picture moves somewhere the next frame will not cover. Shared memory objects
    /// the terminal has not taken yet are unlinked.
    public func delete(framing: Framing = .plain, into output: ByteBuffer) {
        sharedFrames?.reclaimAll()
        let escape: [UInt8] = framing.doublesEscapes ? [0x1B, 0x1B] : [0x1B]
        output.append(framing.before)
        output.append(escape)
        output.append(Array("_Ga=d,d=I,i=\(imageID),q=2".utf8))
        output.append(escape)
        output.append(UInt8(ascii: "\\"))
        output.append(framing.after)
        shown = nil
    }

    /// Shared memory objects handed to the terminal and not yet known to be taken (tests).
    var sharedMemoryPending: Int { sharedFrames?.pendingCount ?? 0 }

    // MARK: internals

    private enum SharedOutcome {
        case sent
        case gaveUp(String)
    }

    /// Writes `previous` (`count` packed bytes) into a new shared memory object and appends the
    /// one APC string that names it.
    private func writeShared(count: Int, state: Shown, framing: Framing, into output: ByteBuffer) -> SharedOutcome {
        guard let frames = sharedFrames else { return .gaveUp("no shared memory") }
        if frames.terminalIgnoresThem {
            return .gaveUp("the terminal took none of the first \(SharedMemoryFrames.untakenLimit) shared memory frames")
        }
        var made: SharedMemoryFrame?
        // A name that exists already (left by someone else) is skipped, a few times.
        for attempt in 0..<3 where made == nil {
            do throws(SystemCallError) {
                made = try SharedMemoryFrame.create(name: frames.nextName(), size: count)
            } catch {
                if error.errno == EEXIST, attempt < 2 { continue }
                return .gaveUp("shared memory failed (\(error))")
            }
        }
        guard let frame = made else { return .gaveUp("shared memory failed (no free name)") }
        guard let bytes = frame.bytes?.baseAddress else { return .gaveUp("shared memory not mapped") }
        bytes.copyMemory(from: previous, byteCount: count)
        frame.handOff()
        frames.handedOff(frame, now: clock.seconds)
        // POSIX names start with a slash; kitty is given the name without it (as mpv does).
        let name = Base64.encode(Array(frame.name.utf8.dropFirst()))
        let escape: [UInt8] = framing.doublesEscapes ? [0x1B, 0x1B] : [0x1B]
        var keys: [UInt8] = Array("_Ga=T,t=s,f=\(state.alpha ? 32 : 24),s=\(state.width),v=\(state.height),S=\(count),".utf8)
        // One chunk, said as such (`m=0`): ghostty breaks on a shared memory transmission it
        // could read as the start of a chunked one.
        keys += Array("i=\(imageID),p=\(placementID),\(virtual ? "U" : "C")=1,c=\(state.columns),r=\(state.rows),m=0,q=2;".utf8)
        output.append(framing.before)
        output.append(escape)
        output.append(keys)
        output.append(name)
        output.append(escape)
        output.append(UInt8(ascii: "\\"))
        output.append(framing.after)
        return .sent
    }

    private func reserve(_ count: Int) {
        guard count > bufferCapacity else { return }
        current.deallocate()
        previous.deallocate()
        current = .allocate(capacity: count)
        previous = .allocate(capacity: count)
        bufferCapacity = count
        shown = nil
    }

    /// Packs `image` into `current`: RGB rows, or RGBA with alpha 255 and holes (clipped to the
    /// picture) 0,0,0,0.
    private func pack(_ image: PixelImage, alpha: Bool, holes: [PixelRect]) {
        let width = image.width, height = image.height, stride = image.stride
        let sourceBPP = image.format.bytesPerPixel
        let out = current
        image.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            if !alpha, sourceBPP == 3 {
                for y in 0..<height { (out + y * width * 3).update(from: base + y * stride, count: width * 3) }
                return
            }
            let bpp = alpha ? 4 : 3
            for y in 0..<height {
                var s = base + y * stride
                var d = out + y * width * bpp
                for _ in 0..<width {
                    d[0] = s[0]
                    d[1] = s[1]
                    d[2] = s[2]
                    if alpha { d[3] = 255 }
                    s += sourceBPP
                    d += bpp
                }
            }
        }
        guard alpha else { return }
        let picture = PixelRect(x: 0, y: 0, width: width, height: height)
        for rect in holes {
            let hole = rect.intersection(picture)
            guard !hole.isEmpty else { continue }
            for y in hole.y..<(hole.y + hole.height) {
                (out + (y * width + hole.x) * 4).update(repeating: 0, count: hole.width * 4)
            }
        }
    }

    /// Writes `count` bytes from `source` (packed pixels, or deflated with `compressed`) as
    /// chunks; returns how many.
    private func writeChunks(from source: UnsafeMutablePointer<UInt8>, count: Int, compressed: Bool, state: Shown,
                             framing: Framing, into output: ByteBuffer) -> Int {
        let chunks = max(1, (count + Self.chunkBytes - 1) / Self.chunkBytes)
        let escapeLength = framing.doublesEscapes ? 2 : 1
        // Per chunk: framing, ESC _G, keys (first: under 160), ;, payload, ESC \; plus store slack.
        let perChunk = framing.before.count + framing.after.count + 2 * escapeLength + 16
        let worst = Base64.encodedCount(count) + chunks * perChunk + 160 + 8
        return Base64.pairs.withUnsafeBufferPointer { table -> Int in
            guard let pairs = table.baseAddress else { return 0 }
            return framing.before.withUnsafeBufferPointer { before in
                framing.after.withUnsafeBufferPointer { after in
                    output.write(maxBytes: worst) { w in
                        var offset = 0
                        for index in 0..<chunks {
                            let length = min(Self.chunkBytes, count - offset)
                            let last = index == chunks - 1
                            Self.copy(before, into: &w)
                            Self.escape(&w, doubled: framing.doublesEscapes)
                            w.bytes(UInt8(ascii: "_"), UInt8(ascii: "G"))
                            if index == 0 {
                                writeFirstKeys(&w, state: state)
                                if compressed {
                                    w.bytes(UInt8(ascii: "o"), UInt8(ascii: "="), UInt8(ascii: "z"))
                                    w.byte(UInt8(ascii: ","))
                                }
                            }
                            Self.key(&w, "m", last ? 0 : 1)
                            w.byte(UInt8(ascii: ","))
                            Self.key(&w, "q", 2)
                            w.byte(UInt8(ascii: ";"))
                            Base64.encode(source + offset, count: length, pairs: pairs, into: &w)
                            Self.escape(&w, doubled: framing.doublesEscapes)
                            w.byte(UInt8(ascii: "\\"))
                            Self.copy(after, into: &w)
                            offset += length
                        }
                        return chunks
                    }
                }
            }
        }
    }

    /// `a=T,f=…,s=…,v=…,i=…,p=…,C=1,c=…,r=…,` (then `m` and `q` follow).
    private func writeFirstKeys(_ w: inout ByteWriter, state: Shown) {
        w.bytes(UInt8(ascii: "a"), UInt8(ascii: "="), UInt8(ascii: "T"))
        w.byte(UInt8(ascii: ","))
        Self.key(&w, "f", state.alpha ? 32 : 24)
        w.byte(UInt8(ascii: ","))
        Self.key(&w, "s", state.width)
        w.byte(UInt8(ascii: ","))
        Self.key(&w, "v", state.height)
        w.byte(UInt8(ascii: ","))
        Self.key(&w, "i", imageID)
        w.byte(UInt8(ascii: ","))
        Self.key(&w, "p", placementID)
        w.byte(UInt8(ascii: ","))
        Self.key(&w, virtual ? "U" : "C", 1)
        w.byte(UInt8(ascii: ","))
        Self.key(&w, "c", state.columns)
        w.byte(UInt8(ascii: ","))
        Self.key(&w, "r", state.rows)
        w.byte(UInt8(ascii: ","))
    }

    @inline(__always) private static func key(_ w: inout ByteWriter, _ name: Unicode.Scalar, _ value: Int) {
        w.bytes(UInt8(ascii: name), UInt8(ascii: "="))
        w.decimal(value)
    }

    @inline(__always) private static func escape(_ w: inout ByteWriter, doubled: Bool) {
        w.byte(0x1B)
        if doubled { w.byte(0x1B) }
    }

    @inline(__always) private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, into w: inout ByteWriter) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        w.cursor.update(from: base, count: bytes.count)
        w.cursor += bytes.count
    }
}
