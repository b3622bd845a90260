import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

@Test func xtermNearestIndexIsExactOverTheCube() {
    var rng = TestImages.LCG(state: 3)
    for _ in 0..<3000 {
        let r = rng.byte(), g = rng.byte(), b = rng.byte()
        let i = Int(XtermPalette.nearestIndex(r: r, g: g, b: b))
        func d(_ k: Int) -> Int {
            let c = XtermPalette.rgb(index: k)
            return (Int(c.r) - Int(r)) * (Int(c.r) - Int(r)) + (Int(c.g) - Int(g)) * (Int(c.g) - Int(g))
                + (Int(c.b) - Int(b)) * (Int(c.b) - Int(b))
        }
        #expect(d(i) == (16...255).map(d).min())
    }
}

@Test func decimalTableAndByteBuffer() {
    let buffer = ByteBuffer(capacity: 8)
    buffer.write(maxBytes: 64) { w in
        for v in [0, 7, 42, 255, 999, 1000, 12345] {
            w.decimal(v)
            w.byte(UInt8(ascii: ","))
        }
    }
    #expect(String(decoding: buffer.bytes, as: UTF8.self) == "0,7,42,255,999,1000,12345,")
    buffer.append("é")
    #expect(buffer.count == 28)
}
