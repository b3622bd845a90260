import AetherBase
import Foundation
import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

@Test func outputWriterWritesOneBracketedFrame() throws {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { close(fds[0]) }
    let writer = OutputWriter(fileDescriptor: fds[1], synchronizedUpdate: true)
    writer.beginFrame()
    let image = try TestImages.natural(width: 20, height: 10)
    try CellRenderer().render(image, into: CellRect(column: 0, row: 0, width: 20, height: 5), output: writer.frame)
    let n = try writer.endFrame()
    close(fds[1])
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let r = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        if r <= 0 { break }
        data += buffer.prefix(r)
    }
    #expect(data.count == n)
    #expect(data.starts(with: Escape.beginSynchronizedUpdate))
    #expect(Array(data.suffix(Escape.endSynchronizedUpdate.count)) == Escape.endSynchronizedUpdate)
    #expect(writer.statistics.frames == 1 && writer.statistics.bytesWritten == n)
    #expect(writer.frame.isEmpty)
}

@Test func outputWriterReportsTheFailingCall() {
    let writer = OutputWriter(fileDescriptor: -1, synchronizedUpdate: false)
    writer.beginFrame()
    writer.frame.append("x")
    #expect(throws: SystemCallError(errno: EBADF, function: "write")) { try writer.endFrame() }
}
