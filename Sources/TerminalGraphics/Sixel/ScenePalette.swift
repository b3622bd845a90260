/// The palette a scene shares, and its warm nearest-colour table: built again only when the
/// ``SceneChangeDetector`` sees the picture change enough, or drift from it.
struct ScenePalette {
    private var detector: SceneChangeDetector
    /// The palette and its nearest-colour table.
    let lookup = ColorLookup()
    /// A palette was built since the last ``reset(threshold:)``.
    private(set) var isBuilt = false

    init(threshold: Double) { detector = SceneChangeDetector(threshold: threshold) }

    /// Forgets the palette: the next frame builds one.
    mutating func reset(threshold: Double) {
        detector = SceneChangeDetector(threshold: threshold)
        isBuilt = false
    }

    /// Builds a palette of at most `colors` (and ``ColorLookup/maxColors``) for `image` when the
    /// scene changed, none was built, or the picture drifted from it; true when it did.
    mutating func update(for image: PixelImage, colors: Int) -> Bool {
        let sceneChanged = detector.shouldRebuild(for: image)
        guard sceneChanged || !isBuilt || detector.hasDrifted(image, lookup: lookup) else { return false }
        if !sceneChanged { detector.adoptReference() }
        lookup.reset(Quantizer.palette(for: image, colors: min(colors, ColorLookup.maxColors)))
        detector.paletteRebuilt()
        _ = detector.hasDrifted(image, lookup: lookup)
        isBuilt = true
        return true
    }
}
