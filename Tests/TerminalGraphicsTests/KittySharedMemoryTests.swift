import CZlib
import Foundation
import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

/// kitty frames through POSIX shared memory (`t=s`): what goes through the tty, what is in the
/// object, who unlinks it, and the fall back to direct transmission.
@Suite struct KittySharedMemoryTests {
    /// One APC `G` string: its keys and payload (shared memory transmissions are one string).
    static func apc(_ bytes: [UInt8]) throws -> (keys: [String: String], payload: String) {
        let text = String(decoding: bytes, as: UTF8.self)
        let start = try #require(text.range(of: "\u{1B}_G"), "no APC in \(text.debugDescription)")
        let end = try #require(text.range(of: "\u{1B}\\", range: start.upperBound..<text.endIndex), "unterminated")
        let body = text[start.upperBound..<end.lowerBound]
        let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        var keys: [String: String] = [:]
        for pair in parts[0].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { keys[String(kv[0])] = String(kv[1]) }
        }
        #expect(text[end.upperBound...].isEmpty, "more than one string")
        return (keys, parts.count > 1 ? String(parts[1]) : "")
    }

    /// The object's bytes as the terminal would map them, or nil when it does not exist.
    static func read(_ name: String) -> [UInt8]? {
        let fd = shm_open(name, O_RDONLY, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n == bytes.count ? bytes : nil
    }

    static func exists(_ name: String) -> Bool {
        let fd = shm_open(name, O_RDONLY, 0)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    static func name(fromPayload payload: String) throws -> String {
        let data = try #require(Data(base64Encoded: payload), "payload is not base64: \(payload)")
        return "/" + String(decoding: data, as: UTF8.self)
    }

    @Test func aFrameGoesThroughSharedMemoryAndOnlyItsNameThroughTheTty() throws {
        let image = try TestImages.natural(width: 97, height: 53)
        let encoder = KittyEncoder(imageID: 77, placementID: 3, transmission: .sharedMemory, clock: .monotonic)
        let out = ByteBuffer()
        let report = encoder.encode(image, columns: 12, rows: 4, into: out)
        #expect(report.outcome == .encoded && report.transmission == .sharedMemory && report.note == nil)
        #expect(report.bytes == out.count && out.count < 200, "\(out.count) bytes through the tty")
        let (keys, payload) = try Self.apc(out.bytes)
        #expect(keys["a"] == "T" && keys["t"] == "s" && keys["f"] == "24" && keys["s"] == "97" && keys["v"] == "53")
        #expect(keys["S"] == "\(97 * 53 * 3)" && keys["i"] == "77" && keys["p"] == "3" && keys["q"] == "2")
        #expect(keys["C"] == "1" && keys["c"] == "12" && keys["r"] == "4")
        let name = try Self.name(fromPayload: payload)
        #expect(name.hasPrefix("/aether-kitty-\(getpid())-77-") && name.split(separator: "-").count == 6, "\(name)")
        let pixels = try #require(Self.read(name), "no shared memory object \(name)")
        #expect(pixels == KittyEncoderTests.rgb(image), "the object does not hold the frame")
        // The terminal unlinks what it read; the encoder then has nothing of its own to remove.
        #expect(shm_unlink(name) == 0)
        #expect(encoder.sharedMemoryPending == 1)
        // The same frame again: nothing written, no object made.
        out.removeAll()
        #expect(encoder.encode(image, columns: 12, rows: 4, into: out).outcome == .identical && out.isEmpty)
        #expect(encoder.sharedMemoryPending == 1)
    }

    @Test func namesTheTerminalNeverTookAreUnlinkedAtTeardownAndDeinit() throws {
        var names: [String] = []
        var encoder: KittyEncoder? = KittyEncoder(imageID: 90, placementID: 1, transmission: .sharedMemory, clock: .monotonic)
        for shade in [10, 20, 30] {
            let image = try PixelImage(width: 8, height: 4, format: .rgb24, pixels: [UInt8](repeating: UInt8(shade), count: 96))
            let out = ByteBuffer()
            _ = encoder?.encode(image, columns: 2, rows: 1, into: out)
            names.append(try Self.name(fromPayload: Self.apc(out.bytes).payload))
        }
        #expect(Set(names).count == 3 && names.allSatisfy(Self.exists), "\(names)")
        #expect(Self.read(names[1]) == [UInt8](repeating: 20, count: 96))
        let out = ByteBuffer()
        encoder?.delete(into: out)
        #expect(!names.contains(where: Self.exists), "left in /dev/shm after the delete: \(names.filter(Self.exists))")
        #expect(encoder?.sharedMemoryPending == 0)
        // Frames after the delete, then the encoder goes away: its names go with it.
        let image = try PixelImage(width: 8, height: 4, format: .rgb24, pixels: [UInt8](repeating: 99, count: 96))
        let again = ByteBuffer()
        _ = encoder?.encode(image, columns: 2, rows: 1, into: again)
        let last = try Self.name(fromPayload: Self.apc(again.bytes).payload)
        #expect(Self.exists(last))
        encoder = nil
        #expect(!Self.exists(last), "\(last) outlived its encoder")
    }

    /// A name older than 8 frames and 2 s is reclaimed; one the terminal took is gone already
    /// (it counts as taken). A terminal that took some and then lags is not given up; one that
    /// took none of six is.
    @Test func oldNamesAreReclaimedAndATerminalThatTakesNoneIsNoticed() throws {
        let frames = SharedMemoryFrames(prefix: "/aether-test-\(getpid())-reclaim")
        var made: [String] = []
        for i in 0..<12 {
            let frame = try SharedMemoryFrame.create(name: frames.nextName(), size: 3)
            made.append(frame.name)
            frame.handOff()
            // A terminal that reads the first four, then stops.
            if i < 4 { #expect(shm_unlink(frame.name) == 0) }
            frames.handedOff(frame, now: Double(i) * 0.5)
            #expect(frames.pendingCount <= SharedMemoryFrames.reclaimAfter + 4)
        }
        // At t = 5.5 s the frames handed off up to 3.5 s ago and more than 8 back are reclaimed:
        // 0…3 (taken), then nothing more (frame 4 is only 7 back).
        #expect(frames.pendingCount == 8, "\(frames.pendingCount)")
        #expect(frames.untakenInARow == 0 && !frames.terminalIgnoresThem)
        for i in 12..<20 {
            let frame = try SharedMemoryFrame.create(name: frames.nextName(), size: 3)
            made.append(frame.name)
            frame.handOff()
            frames.handedOff(frame, now: Double(i) * 0.5)
        }
        #expect(frames.untakenInARow >= SharedMemoryFrames.untakenLimit && frames.taken == 4, "\(frames.untakenInARow)")
        #expect(!frames.terminalIgnoresThem, "a terminal that took frames and lags was given up")
        #expect(!made.prefix(10).contains(where: Self.exists), "reclaimed names still exist")
        frames.reclaimAll()
        #expect(!made.contains(where: Self.exists), "names left after reclaimAll")
        // A terminal that takes none: given up at the sixth reclaimed; and never more than
        // `maxPending` names wait, however fast the frames come.
        let ignored = SharedMemoryFrames(prefix: "/aether-test-\(getpid())-ignored")
        var names: [String] = []
        for i in 0..<(SharedMemoryFrames.maxPending + 20) {
            let frame = try SharedMemoryFrame.create(name: ignored.nextName(), size: 3)
            names.append(frame.name)
            frame.handOff()
            ignored.handedOff(frame, now: Double(i) * 0.001)
            #expect(ignored.pendingCount <= SharedMemoryFrames.maxPending)
        }
        #expect(ignored.terminalIgnoresThem && ignored.taken == 0 && ignored.reclaimedUntaken == 20, "\(ignored.reclaimedUntaken)")
        ignored.reclaimAll()
        #expect(!names.contains(where: Self.exists))
        // A frame made but never handed off is removed with its owner.
        var unsent: SharedMemoryFrame? = try SharedMemoryFrame.create(name: "/aether-test-\(getpid())-unsent", size: 16)
        #expect(Self.exists("/aether-test-\(getpid())-unsent") && unsent?.bytes?.count == 16)
        unsent = nil
        #expect(!Self.exists("/aether-test-\(getpid())-unsent"))
    }

    @Test func aFailedShmOpenFallsBackToDirectWithOneNote() throws {
        let image = try TestImages.natural(width: 31, height: 17)
        // A name with a slash inside is refused by shm_open (EINVAL).
        let encoder = KittyEncoder(imageID: 5, placementID: 1, transmission: .sharedMemory, sharedMemoryPrefix: "/no/such/dir", clock: .monotonic)
        let out = ByteBuffer()
        let report = encoder.encode(image, columns: 4, rows: 2, into: out)
        #expect(report.outcome == .encoded && report.transmission == .direct && encoder.transmission == .direct)
        #expect(report.note?.contains("shm_open") == true && report.note?.contains("sending frames directly") == true, "\(report.note ?? "-")")
        let parsed = try KittyStream.parse(out.bytes)
        #expect(parsed.transmissions.count == 1 && parsed.transmissions.first?.pixels == KittyEncoderTests.rgb(image))
        // One note only; the next frames go directly without a word.
        let other = try TestImages.natural(width: 31, height: 17, seed: 9)
        out.removeAll()
        let next = encoder.encode(other, columns: 4, rows: 2, into: out)
        let nextParsed = try KittyStream.parse(out.bytes)
        #expect(next.note == nil && next.transmission == .direct && nextParsed.transmissions.count == 1)
    }

    /// The probe asks kitty's `t=s` query only where the terminal is local; `auto` takes shared
    /// memory only when the terminal said OK to it.
    @Test func theSharedMemoryQueryIsAskedLocallyAndDecidesAuto() throws {
        let query = CapabilityProbe.kittySharedMemoryQuery(name: "/aether-probe-1")
        #expect(String(decoding: query, as: UTF8.self) == "\u{1B}_Gi=32,s=1,v=1,a=q,t=s,f=24,S=3;YWV0aGVyLXByb2JlLTE=\u{1B}\\")
        func probe(_ reply: String, _ environment: TerminalEnvironment) -> (caps: TerminalCapabilities, sent: [UInt8]) {
            var terminal = ScriptedTerminal(reply: reply, chunk: .max)
            let report = CapabilityProbe.probe(scripted: &terminal, environment: environment, sharedMemoryQuery: query) { _ in nil }
            return (report.capabilities, terminal.sent)
        }
        let ok = "\u{1B}[?62c\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;OK\u{1B}\\\u{1B}[0n"
        let local = probe(ok, TerminalEnvironment(term: "xterm-kitty"))
        #expect(local.sent.firstRange(of: query) != nil && local.sent.suffix(4) == ArraySlice("\u{1B}[5n".utf8))
        #expect(local.caps.kitty.sharedMemory && !local.caps.remote)
        #expect(KittySharedMemoryUse.auto.transmission(for: local.caps) == .sharedMemory)
        #expect(KittySharedMemoryUse.no.transmission(for: local.caps) == .direct)
        #expect(local.caps.summaryLines.contains("kitty shared memory (t=s): yes"))
        let driver = VideoDrivers.make("auto", capabilities: local.caps, options: .init(), clock: .monotonic) as? KittyDriver
        #expect(driver?.transmission == .sharedMemory && driver?.logDetail == "shared memory")
        var noShm = VideoDrivers.Options()
        noShm.kittySharedMemory = .no
        #expect((VideoDrivers.make("auto", capabilities: local.caps, options: noShm, clock: .monotonic) as? KittyDriver)?.transmission == .direct)
        // A terminal that cannot read it says so.
        let refused = probe("\u{1B}[?62c\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;EBADF:Failed to open\u{1B}\\\u{1B}[0n", TerminalEnvironment(term: "xterm-kitty"))
        #expect(refused.caps.kitty.graphics && !refused.caps.kitty.sharedMemory)
        #expect(KittySharedMemoryUse.auto.transmission(for: refused.caps) == .direct)
        #expect(KittySharedMemoryUse.yes.transmission(for: refused.caps) == .sharedMemory)
        // Over SSH: not asked (an OK from elsewhere is not believed either), auto is direct.
        var ssh = TerminalEnvironment(["TERM": "xterm-kitty", "SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22"])
        #expect(ssh.overSSH && !ssh.mayShareMemory)
        let remote = probe(ok, ssh)
        #expect(remote.sent.firstRange(of: query) == nil && remote.caps.remote && !remote.caps.kitty.sharedMemory)
        #expect(KittySharedMemoryUse.auto.transmission(for: remote.caps) == .direct)
        ssh = TerminalEnvironment(["TERM": "xterm-kitty", "SSH_TTY": "/dev/pts/3"])
        #expect(ssh.overSSH)
        // Inside tmux: asked of the outer terminal through the passthrough (wrapped), and
        // believed only where tmux has passthrough on (here tmux said nothing: not believed).
        let tmux = probe(ok, TerminalEnvironment(term: "tmux-256color", tmux: "/tmp/tmux-0/default,1,0"))
        #expect(tmux.sent.firstRange(of: TmuxPassthrough.wrap(query)) != nil && !tmux.caps.kitty.sharedMemory)
    }

    /// Over a remote link frames sent directly are deflated (`o=z`) when that makes them at most
    /// 3/4 of their size; the terminal inflates exactly the frame. A frame that does not shrink
    /// enough goes raw, and the next ones are not tried for a while.
    @Test func overARemoteLinkFramesAreDeflatedWhenItPays() throws {
        var pixels: [UInt8] = []
        for y in 0..<90 { for x in 0..<160 { pixels += [UInt8(x), UInt8(y), 128] } }
        let smooth = try PixelImage(width: 160, height: 90, format: .rgb24, pixels: pixels)
        let encoder = KittyEncoder(imageID: 8, transmission: .direct, compresses: true, clock: .monotonic)
        let out = ByteBuffer()
        let report = encoder.encode(smooth, columns: 20, rows: 5, into: out)
        #expect(report.compressed && report.outcome == .encoded)
        let raw = KittyEncoder(imageID: 8, clock: .monotonic)
        let rawOut = ByteBuffer()
        _ = raw.encode(smooth, columns: 20, rows: 5, into: rawOut)
        #expect(out.count * 4 <= rawOut.count * 3, "deflated \(out.count) bytes, raw \(rawOut.count)")
        // The chunks joined, base64-decoded and inflated are the frame.
        let text = String(decoding: out.bytes, as: UTF8.self)
        var payload = ""
        var keys = ""
        for piece in text.components(separatedBy: "\u{1B}_G").dropFirst() {
            let body = piece.components(separatedBy: "\u{1B}\\")[0]
            let parts = body.split(separator: ";", maxSplits: 1)
            if keys.isEmpty { keys = String(parts[0]) }
            payload += parts.count > 1 ? String(parts[1]) : ""
        }
        #expect(keys.contains("o=z") && keys.contains("f=24") && keys.contains("s=160"), "\(keys)")
        let deflatedBytes = try #require(Data(base64Encoded: payload))
        var inflated = [UInt8](repeating: 0, count: 160 * 90 * 3)
        var size = uLongf(inflated.count)
        let status = deflatedBytes.withUnsafeBytes { src in
            uncompress(&inflated, &size, src.bindMemory(to: UInt8.self).baseAddress, uLong(deflatedBytes.count))
        }
        #expect(status == Z_OK && Int(size) == inflated.count && inflated == pixels, "inflate status \(status), \(size) bytes")
        // Noise does not shrink to 3/4: sent raw, and the next frame (smooth again) is not tried.
        var rng = SystemRandomNumberGenerator()
        let noise = try PixelImage(width: 160, height: 90, format: .rgb24, pixels: (0..<(160 * 90 * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        out.removeAll()
        let noisy = encoder.encode(noise, columns: 20, rows: 5, into: out)
        let noisyParsed = try KittyStream.parse(out.bytes)
        #expect(!noisy.compressed && noisyParsed.transmissions.first?.pixels == KittyEncoderTests.rgb(noise))
        out.removeAll()
        #expect(!encoder.encode(smooth, columns: 20, rows: 5, into: out).compressed, "tried again at once")
        // Locally (no SSH) the driver never compresses; over SSH it does.
        var caps = TerminalCapabilities()
        caps.kitty.graphics = true
        #expect(!KittySharedMemoryUse.compresses(for: caps))
        caps.remote = true
        #expect(KittySharedMemoryUse.compresses(for: caps))
        #expect((VideoDrivers.make("kitty", capabilities: caps, options: .init(), clock: .monotonic) as? KittyDriver)?.logDetail == "zlib over a remote link")
    }
}
