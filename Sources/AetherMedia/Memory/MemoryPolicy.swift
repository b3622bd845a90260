import CFFmpeg

/// How the process uses glibc's allocator, set once by the host at start.
///
/// The player runs a dozen threads that allocate (demux, decoders and their frame threads, the
/// render and writer threads, the extractor behind scrub previews and the filmstrip, the
/// screenshot encoder). glibc gives each thread its own arena, up to eight per core, and an
/// arena keeps what was freed in it. Under a key storm (scrubbing, filmstrips, screenshots,
/// resizes, three files looping) resident memory rose from about 100 to 260 MiB in four minutes
/// (debug build, 160×48 in tmux) and kept climbing, while the live heap did not; with two
/// arenas it levelled off near 140 MiB. Past a burst of such work (an item change, a resize,
/// the filmstrip or a scrub closed) ``trim()`` hands the free pages back.
public enum MemoryPolicy {
    /// Arenas the allocator may use (glibc's `M_ARENA_MAX`).
    public static let arenas: Int32 = 2

    /// Caps the allocator's arenas; call before the first threads start.
    public static func limitArenas() {
        _ = aether_malloc_arena_max(arenas)
    }

    /// Returns free heap pages to the system (`malloc_trim(0)`; a few milliseconds at most on
    /// this player's heaps, so only after bursts, never per frame).
    public static func trim() {
        _ = aether_malloc_trim()
    }
}
