/// The encoder's two planes of palette indices, one per pixel: this frame's (``ColorLookup/none``:
/// transparent) and the one the terminal shows (``ColorLookup/none``: unknown). Sized for the
/// largest picture yet, swapped after each frame, never copied.
struct IndexPlanes: ~Copyable {
    private(set) var indices: UnsafeMutablePointer<UInt8> = .allocate(capacity: 1)
    private(set) var shown: UnsafeMutablePointer<UInt8> = .allocate(capacity: 1)
    private var capacity = 0

    deinit {
        indices.deallocate()
        shown.deallocate()
    }

    /// Room for `pixels` in each plane (new room: nothing known).
    mutating func reserve(_ pixels: Int) {
        guard pixels > capacity else { return }
        indices.deallocate()
        shown.deallocate()
        indices = .allocate(capacity: pixels)
        shown = .allocate(capacity: pixels)
        indices.initialize(repeating: ColorLookup.none, count: pixels)
        shown.initialize(repeating: ColorLookup.none, count: pixels)
        capacity = pixels
    }

    /// Nothing the terminal shows is known at the first `pixels` (nil: every pixel).
    func forgetShown(_ pixels: Int? = nil) { shown.update(repeating: ColorLookup.none, count: pixels ?? capacity) }

    /// This frame's indices become what the terminal shows.
    mutating func swap() { Swift.swap(&indices, &shown) }
}
