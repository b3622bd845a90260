import AetherTestSupport
import Foundation
import Testing

/// `aether-tui extract` run the way users run it: the PNG it writes is ffmpeg's frame, the
/// default name lands in the current directory, errors are one line, and a thousand stills
/// keep the memory flat.
@Suite struct ExtractTests {
    static let numbered = TestEnvironment.fixture("frames-numbered.mkv")

    private func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "aether-extract-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func snapshotPNGIsFFmpegsFrame() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/still.png"
        let r = Process.run([TestEnvironment.binary, "extract", Self.numbered, "--at", "0:05.5", "--snapshot", "-o", out], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == out + "\n")
        let pixels = try #require(StillReference.decodeImage(out))
        let reference = try #require(StillReference.ffmpegFrame(Self.numbered, at: 5.5))
        #expect(StillReference.frameNumber(pixels, width: 320) == 132)
        let psnr = StillReference.psnr(pixels, reference)
        #expect(psnr >= 35, "PSNR \(psnr) dB")
    }

    /// Over HTTP (a Range-capable server of the suite on 127.0.0.1): the extractor opens its own
    /// connection, seeks with Range requests, sends the given header on every request, and the
    /// snapshot is still ffmpeg's frame.
    @Test func snapshotOverHTTPSendsTheHeadersOnEveryRequest() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/requests.jsonl"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [TestEnvironment.root.appendingPathComponent("Tests/Scripts/range_http.py").path,
                            (Self.numbered as NSString).deletingLastPathComponent, log]
        let out = Pipe(), input = Pipe()
        server.standardOutput = out
        server.standardInput = input
        try server.run()
        defer {
            try? input.fileHandleForWriting.close()
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var portText = ""
        while !portText.hasSuffix("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            portText += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)), "no port: \(portText)")
        // 2.2 MB: a seek to 7.5 s lies beyond what the first response has delivered, so it takes
        // a Range request (the 34 KB numbered clip could arrive whole in the first one).
        let url = "http://127.0.0.1:\(port)/h264-720p.mkv"
        let png = dir + "/still.png"
        let r = Process.run([TestEnvironment.binary, "extract", url, "--at", "7.5", "--snapshot", "-o", png,
                             "--http-header-fields", "X-Aether-Test: scrub-42"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let pixels = try #require(StillReference.decodeImage(png))
        let clip = TestEnvironment.fixture("h264-720p.mkv")
        // An HD clip without colour tags is BT.709 to the player; ffmpeg's CLI assumes BT.601.
        // Stills are converted as accurately as libswscale can (chroma interpolated to every
        // pixel, exact rounding): so is the reference, and the two are equal.
        let bt709 = "scale=in_color_matrix=bt709:flags=bicubic+full_chroma_int+full_chroma_inp+accurate_rnd,format=rgb24"
        let reference = try #require(StillReference.ffmpegFrame(clip, at: 7.5, filter: bt709))
        let psnr = StillReference.psnr(pixels, reference)
        #expect(psnr >= 50, "PSNR \(psnr) dB")
        // The exact frame (frame 180), not a neighbour: closer to it than to frames 179 and 181.
        for neighbour in [7.5 - 1.0 / 24, 7.5 + 1.0 / 24] {
            let other = try #require(StillReference.ffmpegFrame(clip, at: neighbour, filter: bt709))
            #expect(psnr > StillReference.psnr(pixels, other), "closer to the frame at \(neighbour) s")
        }
        let requests = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(requests.count >= 2, "expected an open and a seek: \(requests.count) requests")
        #expect(requests.contains { ($0["range"] as? String).map { $0 != "bytes=0-" } ?? false }, "no seek by Range")
        for request in requests {
            let headers = request["headers"] as? [String: String] ?? [:]
            #expect(headers["X-Aether-Test"] == "scrub-42", "a request without the header: \(request)")
        }
        print("extract over HTTP: \(requests.count) requests, all with the header")
    }

    @Test func thumbnailGoesToTheDefaultNameInTheCurrentDirectory() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Process.run(["/bin/sh", "-c", "cd \"$1\" && exec \"$2\" extract \"$3\" --at 50% --width 160",
                             "sh", dir, TestEnvironment.binary, Self.numbered], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let name = "aether-tui-frames-numbered-00-00-05.000.png"
        #expect(r.stdout == name + "\n")
        let pixels = try #require(StillReference.decodeImage(dir + "/" + name))
        #expect(pixels.count == 160 * 120 * 3)
        #expect(StillReference.frameNumber(pixels, width: 160, stripe: 20, row: 60) == 120)
    }

    @Test func errorsAreOneLineWithFFmpegsWords() {
        let missing = "/nonexistent/\u{1B}[31mclip.mkv"
        let r = Process.run([TestEnvironment.binary, "extract", missing, "--at", "1"], timeout: 30)
        #expect(r.status != 0)
        #expect(r.stdout.isEmpty)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(r.stderr.contains("No such file or directory"))
        #expect(r.stderr.contains("/nonexistent/") && !r.stderr.contains("\u{1B}"), "the file name is there, sanitised")
        let bad = Process.run([TestEnvironment.binary, "extract", Self.numbered, "--at", "soon"], timeout: 30)
        #expect(bad.status != 0 && bad.stderr.contains("--at"))
    }

    /// 1000 decoded thumbnails at positions cycling over the file: the peak RSS after the first
    /// 100 and after all 1000 stay within a few MiB of each other.
    @Test func thousandExtractionsKeepMemoryFlat() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Process.run([TestEnvironment.binary, "extract", Self.numbered, "--at", "3", "--loops", "1000",
                             "-o", dir + "/last.png"], timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        func rss(after loops: Int) -> Int? {
            r.stdout.split(separator: "\n").first { $0.hasPrefix("peak RSS after \(loops) loops: ") }
                .flatMap { Int($0.split(separator: " ")[5]) }
        }
        let early = try #require(rss(after: 100))
        let late = try #require(rss(after: 1000))
        print("extract --loops 1000: peak RSS \(early) KiB after 100 loops, \(late) KiB after 1000 (+\(late - early) KiB)")
        #expect(late - early < 4096, "grew \(late - early) KiB between 100 and 1000 extractions")
        #expect(r.stdout.contains("opens 1, decodes 1000, cache hits 0"))
    }
}
