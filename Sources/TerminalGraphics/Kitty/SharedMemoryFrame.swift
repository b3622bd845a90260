import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// One POSIX shared memory object carrying one kitty frame (`t=s`), owned once.
///
/// ``create(name:size:)`` opens (`shm_open`, `O_CREAT | O_EXCL`, mode 0600), sizes (`ftruncate`)
/// and maps (`mmap`) it; ``handOff()`` unmaps it and closes the descriptor, leaving only the
/// name, which the terminal unlinks once it has read the pixels. ``reclaim()`` unlinks a name
/// the terminal has not taken (a frame the writer refused, a terminal that never read it).
/// `deinit` undoes whatever is still done: the mapping, the descriptor and the name each go
/// exactly once, whichever path runs first.
///
/// Not thread-safe: one belongs to one render thread.
final class SharedMemoryFrame {
    /// The object's name, `/aether-kitty-…` (the leading slash is POSIX's; kitty gets it without).
    let name: String
    /// Bytes in the object.
    let size: Int
    private var descriptor: Int32
    private var mapping: UnsafeMutableRawPointer?
    /// The name still exists as far as we know, and nobody else is meant to unlink it.
    private var linked: Bool
    /// Handed to the terminal: from then on the terminal unlinks it (we only reclaim).
    private(set) var handedOff = false

    private init(name: String, size: Int, descriptor: Int32, mapping: UnsafeMutableRawPointer) {
        self.name = name
        self.size = size
        self.descriptor = descriptor
        self.mapping = mapping
        linked = true
    }

    /// Creates, sizes and maps a new object `name` of `size` bytes. The corresponding C
    /// functions are `shm_open`, `ftruncate` and `mmap`; on a failure everything done so far is
    /// undone and the failing call is named.
    static func create(name: String, size: Int) throws(SystemCallError) -> SharedMemoryFrame {
        guard size > 0 else { throw SystemCallError(errno: EINVAL, function: "shm_open") }
        var fd: Int32 = -1
        repeat { fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw SystemCallError(errno: errno, function: "shm_open") }
        func undo(_ function: String) -> SystemCallError {
            let error = SystemCallError(errno: errno, function: function)
            close(fd)
            shm_unlink(name)
            return error
        }
        var sized: Int32 = -1
        repeat { sized = ftruncate(fd, off_t(size)) } while sized != 0 && errno == EINTR
        guard sized == 0 else { throw undo("ftruncate") }
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { throw undo("mmap") }
        return SharedMemoryFrame(name: name, size: size, descriptor: fd, mapping: mapped)
    }

    /// The mapped bytes (nil after ``handOff()``).
    var bytes: UnsafeMutableRawBufferPointer? {
        mapping.map { UnsafeMutableRawBufferPointer(start: $0, count: size) }
    }

    /// The pixels are written: unmaps and closes; the name is now the terminal's to unlink.
    func handOff() {
        unmap()
        handedOff = true
    }

    /// Unlinks the name if it still exists. True when it did (the terminal never took the
    /// frame), false when it was gone already (the terminal read and unlinked it).
    @discardableResult
    func reclaim() -> Bool {
        unmap()
        guard linked else { return false }
        linked = false
        return shm_unlink(name) == 0
    }

    private func unmap() {
        if let mapping { munmap(mapping, size) }
        mapping = nil
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit {
        unmap()
        // A frame never handed off is ours to remove; one handed off is the terminal's, unless
        // it was reclaimed (then `linked` is already false).
        if linked, !handedOff { shm_unlink(name) }
    }
}

/// The frames handed to the terminal and not yet known to be taken, oldest first, and the names
/// new frames get. A frame older than ``reclaimAfter`` frames and ``reclaimSeconds`` is
/// reclaimed (``SharedMemoryFrame/reclaim()``): the terminal has had its chance; so is any beyond
/// ``maxPending`` (a terminal far behind loses frames rather than filling `/dev/shm`). A terminal
/// that has taken none at all by the ``untakenLimit``-th reclaimed one does not read shared
/// memory (a terminal in another mount namespace, one without `t=s`): the caller falls back. One
/// that took some and lags (its frames queued in the tty) is not given up.
///
/// At teardown (``reclaimAll()``, deinit) every name still pending is unlinked, so a terminal
/// that went away leaves nothing in `/dev/shm`.
final class SharedMemoryFrames {
    static let reclaimAfter = 8
    static let reclaimSeconds = 2.0
    static let maxPending = 48
    static let untakenLimit = 6

    private let prefix: String
    private var serial = 0
    private var pending: [(frame: SharedMemoryFrame, at: Double)] = []
    /// Reclaimed frames in a row that the terminal had not taken.
    private(set) var untakenInARow = 0
    /// Totals, for tests and the log.
    private(set) var reclaimedUntaken = 0
    /// Frames found taken by the terminal (their names were gone when reclaimed).
    private(set) var taken = 0

    /// - Parameter prefix: the start of every name (`/aether-kitty-<pid>-<image id>`).
    init(prefix: String) {
        self.prefix = prefix
    }

    /// The name for the next frame.
    func nextName() -> String {
        serial &+= 1
        return "\(prefix)-\(serial)"
    }

    /// How many handed-off frames are waiting for the terminal.
    var pendingCount: Int { pending.count }

    /// `frame` was handed to the terminal at `now` (monotonic seconds); frames old enough are
    /// reclaimed.
    func handedOff(_ frame: SharedMemoryFrame, now: Double) {
        pending.append((frame, now))
        while let first = pending.first, pending.count > Self.maxPending
                || (pending.count > Self.reclaimAfter && now - first.at >= Self.reclaimSeconds) {
            pending.removeFirst()
            if first.frame.reclaim() {
                untakenInARow += 1
                reclaimedUntaken += 1
            } else {
                untakenInARow = 0
                taken += 1
            }
        }
    }

    /// The terminal has taken none of the frames and left ``untakenLimit`` of them in a row.
    var terminalIgnoresThem: Bool { taken == 0 && untakenInARow >= Self.untakenLimit }

    /// Unlinks every pending name (teardown: the terminal will read no more).
    func reclaimAll() {
        for p in pending { p.frame.reclaim() }
        pending.removeAll()
    }

    deinit { reclaimAll() }
}
