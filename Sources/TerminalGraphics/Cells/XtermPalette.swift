/// The xterm 256-colour palette's fixed part: the 6×6×6 cube (indices 16–231) and the grey
/// ramp (232–255). Indices 0–15 are left out because each terminal defines them differently.
public enum XtermPalette {
    /// The cube's channel levels.
    public static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]

    /// The RGB value of a palette index in 16...255.
    public static func rgb(index: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        if index >= 232 {
            let v = UInt8(clamping: 8 + 10 * (index - 232))
            return (v, v, v)
        }
        let i = max(0, index - 16)
        return (cubeLevels[(i / 36) % 6], cubeLevels[(i / 6) % 6], cubeLevels[i % 6])
    }

    /// Nearest cube level index per channel value.
    static let nearestLevel: [UInt8] = (0..<256).map { v in
        var best = 0
        for i in 1..<6 where abs(Int(cubeLevels[i]) - v) < abs(Int(cubeLevels[best]) - v) { best = i }
        return UInt8(best)
    }

    /// The nearest index (Euclidean RGB) in 16...255.
    ///
    /// Exact: the cube is separable, so the per-channel nearest level is its nearest point; the
    /// ramp's nearest grey is the level nearest the channel mean; the closer of the two wins.
    @inline(__always)
    public static func nearestIndex(r: UInt8, g: UInt8, b: UInt8) -> UInt8 {
        let ri = Int(nearestLevel[Int(r)]), gi = Int(nearestLevel[Int(g)]), bi = Int(nearestLevel[Int(b)])
        let cr = Int(cubeLevels[ri]) - Int(r), cg = Int(cubeLevels[gi]) - Int(g), cb = Int(cubeLevels[bi]) - Int(b)
        let cubeDistance = cr * cr + cg * cg + cb * cb
        // Distance to grey g is 3(g − mean)² + const: test the two ramp steps around the mean.
        let sum = Int(r) + Int(g) + Int(b)
        let below = min(23, max(0, (sum - 24) / 30))
        var greyStep = below
        var greyDistance = Int.max
        for step in below...min(23, below + 1) {
            let grey = 8 + 10 * step
            let gr = grey - Int(r), gg = grey - Int(g), gb = grey - Int(b)
            let d = gr * gr + gg * gg + gb * gb
            if d < greyDistance {
                greyDistance = d
                greyStep = step
            }
        }
        if greyDistance < cubeDistance { return UInt8(232 + greyStep) }
        return UInt8(16 + 36 * ri + 6 * gi + bi)
    }
}
