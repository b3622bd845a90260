@testable import AetherEngine
import AetherTestSupport
@testable import AetherTUI
import Foundation
import Glibc
import Testing

/// The inspector's container tab reads its document on a thread of its own (#60): the result
/// wakes the loop and is taken once; a read that waits on a server that never answers ends at
/// once when the inspector closes (`stop`: cancelled, then joined). Tier: network (a loopback
/// socket that listens and never answers).
@Suite struct DocumentReaderTests {
    @Test func aFilesDocumentArrivesOnceAndWakesTheLoop() throws {
        let woke = DispatchSemaphore(value: 0)
        let reader = DocumentReader(path: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), network: NetworkSettings(),
                                    clock: .monotonic, wake: { woke.signal() })
        defer { reader.stop() }
        #expect(woke.wait(timeout: .now() + 10) == .success, "the read never woke the loop")
        let read = try #require(reader.take())
        let document = try read.get()
        #expect(document.parser.format == .matroska)
        #expect(reader.take() == nil, "taken once")
    }

    @Test func closingWhileAServerNeverAnswersEndsTheReadAtOnce() throws {
        // A socket that listens and never accepts: the connection is made (the backlog) and the
        // request never answered.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0)
        try #require(listen(fd, 8) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        var network = NetworkSettings()
        network.readTimeout = 60
        let reader = DocumentReader(path: "http://127.0.0.1:\(port)/film.mkv", network: network, clock: .monotonic, wake: {})
        // The read is under way once its connection waits in the backlog (the socket reads ready).
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 10_000) == 1, "the reader never connected")
        #expect(reader.take() == nil, "nothing can have arrived")
        let start = Date()
        reader.stop()
        let took = Date().timeIntervalSince(start)
        #expect(took < 2, "stop took \(took) s")
        print("document reader: stopped \(Int(took * 1000)) ms after the close, the server silent")
    }
}
