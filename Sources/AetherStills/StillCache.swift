import AetherMedia

/// The extractor's bounded LRU cache: thumbnails bucketed by whole second (floor), snapshots in a
/// separate store in 0.1 s buckets, both under one byte cap. Keys ignore the requested size, but a
/// hit never hands out a picture of another size than asked for (a narrower one is never scaled
/// up: the request decodes again and replaces it).
struct StillCache {
    struct Limits {
        var thumbnails = 64
        var snapshots = 2
        var bytes = 32 << 20
    }

    private struct Entry {
        var image: StillImage
        /// Thumbnails: the width the request asked for. Snapshots: the requested bounds.
        var maxWidth: Int?
        var maxHeight: Int?
        /// Snapshots: the frame is shown until here (its pts + one frame interval).
        var shownUntil: Double
        var lastUse: UInt64
    }

    let limits: Limits
    private var thumbnails: [Int: Entry] = [:]
    private var snapshots: [Int: Entry] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0

    init(limits: Limits = Limits()) { self.limits = limits }

    var thumbnailCount: Int { thumbnails.count }
    var snapshotCount: Int { snapshots.count }

    static func thumbnailBucket(_ position: Double) -> Int { Int(saturating: position.rounded(.down)) }
    static func snapshotBucket(_ position: Double) -> Int { Int(saturating: (position * 10).rounded()) }

    /// The thumbnail for `position`'s second when it was made `width` wide, or is narrower only
    /// because the source is.
    mutating func thumbnail(at position: Double, width: Int) -> StillImage? {
        let key = Self.thumbnailBucket(position)
        guard let entry = thumbnails[key] else { return nil }
        let fits = entry.image.width == width || (entry.image.width < (entry.maxWidth ?? 0) && entry.image.width <= width)
        guard fits else { return nil }
        let now = tick()
        thumbnails[key]?.lastUse = now
        return entry.image
    }

    /// Whatever thumbnail is cached for `position`'s second, at any size.
    mutating func anyThumbnail(at position: Double) -> StillImage? {
        let key = Self.thumbnailBucket(position)
        guard let entry = thumbnails[key] else { return nil }
        let now = tick()
        thumbnails[key]?.lastUse = now
        return entry.image
    }

    /// The snapshot shown at `position`, when one was made for the same bounds.
    mutating func snapshot(at position: Double, maxWidth: Int?, maxHeight: Int?) -> StillImage? {
        let key = Self.snapshotBucket(position)
        guard let entry = snapshots[key], entry.maxWidth == maxWidth, entry.maxHeight == maxHeight,
              position + 0.0005 >= entry.image.seconds, position + 0.0005 < entry.shownUntil else { return nil }
        let now = tick()
        snapshots[key]?.lastUse = now
        return entry.image
    }

    mutating func insertThumbnail(_ image: StillImage, at position: Double, requestedWidth: Int) {
        let key = Self.thumbnailBucket(position)
        remove(thumbnails.removeValue(forKey: key))
        let now = tick()
        thumbnails[key] = Entry(image: image, maxWidth: requestedWidth, maxHeight: nil, shownUntil: image.seconds, lastUse: now)
        bytes += image.byteCount
        evict()
    }

    mutating func insertSnapshot(_ image: StillImage, at position: Double, maxWidth: Int?, maxHeight: Int?, frameInterval: Double) {
        let key = Self.snapshotBucket(position)
        remove(snapshots.removeValue(forKey: key))
        let now = tick()
        snapshots[key] = Entry(image: image, maxWidth: maxWidth, maxHeight: maxHeight,
                               shownUntil: image.seconds + frameInterval, lastUse: now)
        bytes += image.byteCount
        evict()
    }

    mutating func removeAll() {
        thumbnails.removeAll()
        snapshots.removeAll()
        bytes = 0
    }

    private mutating func tick() -> UInt64 {
        clock += 1
        return clock
    }

    private mutating func remove(_ entry: Entry?) {
        if let entry { bytes -= entry.image.byteCount }
    }

    /// Drops least recently used entries until both stores and the byte total are within limits.
    private mutating func evict() {
        while thumbnails.count > limits.thumbnails, let key = Self.oldest(thumbnails) {
            remove(thumbnails.removeValue(forKey: key))
        }
        while snapshots.count > limits.snapshots, let key = Self.oldest(snapshots) {
            remove(snapshots.removeValue(forKey: key))
        }
        while bytes > limits.bytes {
            let t = Self.oldest(thumbnails).flatMap { k in thumbnails[k].map { (k, $0.lastUse) } }
            let s = Self.oldest(snapshots).flatMap { k in snapshots[k].map { (k, $0.lastUse) } }
            if let t, s.map({ t.1 < $0.1 }) ?? true {
                remove(thumbnails.removeValue(forKey: t.0))
            } else if let s {
                remove(snapshots.removeValue(forKey: s.0))
            } else {
                break
            }
        }
    }

    private static func oldest(_ store: [Int: Entry]) -> Int? {
        store.min { $0.value.lastUse < $1.value.lastUse }?.key
    }
}
