import AetherBase

/// Documents read while opening a source, served once each to the demuxer's first open of the
/// same URL (``NetworkSession/Memory/prefetched``). At most ``maxEntries`` documents of
/// ``NetworkSession/manifestBudget`` bytes each are kept; more are not (the demuxer then fetches
/// them itself).
package final class PrefetchedDocuments: Sendable {
    static let maxEntries = 64
    private let entries = Guarded<[String: [UInt8]]>([:])

    package init() {}

    /// Keeps `bytes` for the first open of `url` (a later copy of the same URL replaces it).
    package func keep(_ url: String, _ bytes: [UInt8]) {
        guard bytes.count <= Int(NetworkSession.manifestBudget) else { return }
        entries.withLock { e in
            if e[url] != nil || e.count < Self.maxEntries { e[url] = bytes }
        }
    }

    /// The bytes kept for `url`, once (nil when none, or already taken).
    func take(_ url: String) -> [UInt8]? {
        entries.withLock { $0.removeValue(forKey: url) }
    }

    /// URLs still held (for tests and the log).
    var held: [String] { entries.withLock { Array($0.keys) } }
}
