import Foundation

/// The peers: libsixel (through a driver compiled now from Tests/Scripts), mpv --vo=tct,
/// mpv --vo=sixel, mpv --vo=null (decode cost) and timg, each only when installed.
struct Peers {
    let workDir: String
    let colors: Int
    let mediaSeconds: Int

    struct Player {
        var name: String
        var cpuSeconds: Double
        var bytes: Int
        var media: Double
        var frames: Int?
        var cpuPerMediaSecond: Double { cpuSeconds / media }
        var bytesPerSecond: Double { Double(bytes) / media }
        var line: String {
            var s = name.padding(toLength: 34, withPad: " ", startingAt: 0)
            s += " CPU \(Stats.fmt(cpuPerMediaSecond, 3)) s/media-s  \(Stats.fmt(bytesPerSecond / 1e6, 2)) MB/s"
            if let frames { s += "  \(frames)/\(Int(media * 24)) frames written" }
            return s
        }
    }

    /// Compiles the libsixel driver (needs cc, pkg-config and libsixel-dev, which
    /// Tests/Scripts/install-deps.sh installs); says why when it cannot.
    func libsixelDriver() -> String? {
        let binary = "\(workDir)/libsixel-bench"
        let source = ["Tests/Scripts/libsixel-bench.c", "\(FileManager.default.currentDirectoryPath)/Tests/Scripts/libsixel-bench.c"]
            .first { FileManager.default.fileExists(atPath: $0) }
        guard let source else {
            print("libsixel: MISSING: Tests/Scripts/libsixel-bench.c not found (run from the repository root)")
            return nil
        }
        guard Spawn.which("cc") != nil, let flags = Spawn.output(["pkg-config", "--cflags", "--libs", "libsixel"]) else {
            print("libsixel: MISSING: needs cc, pkg-config and libsixel-dev; run `bash Tests/Scripts/install-deps.sh`")
            return nil
        }
        // Always rebuilt (under a second), so an edited driver is never measured stale.
        let argv = ["cc", "-O2", "-o", binary, source] + flags.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard Spawn.run(argv).status == 0 else {
            print("libsixel: MISSING: the driver did not compile (\(argv.joined(separator: " ")))")
            return nil
        }
        return binary
    }

    /// Encodes `set` with libsixel; PSNR of every frame painted as a terminal would.
    func libsixel(_ set: FrameSet, driver: String, diffuse: String, palette: String) throws -> RunResult? {
        let input = "\(workDir)/\(set.name)-\(set.width)x\(set.height)-\(set.count)-all.rgb"
        if !FileManager.default.fileExists(atPath: input) { try set.write(to: input) }
        let output = "\(workDir)/libsixel-\(diffuse)-\(palette)-\(set.name).six"
        let report = "\(workDir)/libsixel-report.txt"
        let m = Spawn.run([driver, "\(set.width)", "\(set.height)", "\(set.count)", "\(colors)", diffuse, palette, input, output],
                          stdoutPath: report)
        guard m.status == 0, let text = try? String(contentsOfFile: report, encoding: .utf8) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
        }
        guard let times = fields["times_ms"]?.split(separator: ",").compactMap({ Double($0) }), times.count == set.count,
              let bytes = fields["bytes"].flatMap(Int.init) else { return nil }
        var result = RunResult(frameMilliseconds: times, bytes: bytes)
        let stream = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        result.setPSNR(Self.shownPSNRs(SixelStreamDecoder.images(in: stream), set))
        return result
    }

    /// The PSNR of each frame of `set` against the screen after painting `images` one by one,
    /// as a terminal would (each over what the ones before left).
    static func shownPSNRs(_ images: [ArraySlice<UInt8>], _ set: FrameSet) -> [Double] {
        var screen = [UInt8](repeating: 0, count: set.width * set.height * 3)
        var psnrs: [Double] = []
        for (i, image) in images.enumerated() where i < set.count {
            SixelStreamDecoder.paint(image, onto: &screen, width: set.width, height: set.height)
            psnrs.append(SixelStreamDecoder.psnr(screen, set.frames[i]))
        }
        return psnrs
    }

    /// Encodes `set` with chafa's sixel encoder (`chafa -f sixels`), one process per frame
    /// given as a PPM, single-threaded, at the set's exact pixel size (without a terminal
    /// chafa's cells are 8 pixels wide, and a font ratio of 1/1 keeps the height); time per
    /// frame is the process's CPU (it includes reading the PPM, a few ms). PSNR of every frame
    /// painted as a terminal would. Nil when chafa is not installed or fails.
    func chafa(_ set: FrameSet, dither: String) throws -> RunResult? {
        guard let chafa = Spawn.which("chafa") else { return nil }
        var times: [Double] = []
        var stream: [UInt8] = []
        let output = "\(workDir)/chafa-out.six"
        for i in 0..<set.count {
            let ppm = "\(workDir)/chafa-frame.ppm"
            var file = Array("P6\n\(set.width) \(set.height)\n255\n".utf8)
            file += set.frames[i]
            try Data(file).write(to: URL(fileURLWithPath: ppm))
            let m = Spawn.run([chafa, "-f", "sixels", "--size=\(set.width / 8)x\(set.height / 8)", "--font-ratio=1/1", "--threads=1",
                               "--colors=full", "--dither=\(dither)", "--polite=on", ppm], stdoutPath: output)
            guard m.status == 0 else { return nil }
            times.append(m.cpuSeconds * 1000)
            stream += try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        }
        var result = RunResult(frameMilliseconds: times, bytes: stream.count)
        let images = SixelStreamDecoder.images(in: stream)
        guard images.prefix(set.count).allSatisfy({ image in
            SixelStreamDecoder.rasterSize(image).map { $0.width == set.width && $0.height >= set.height } ?? false
        }) else { return nil }
        let psnrs = Self.shownPSNRs(images, set)
        guard psnrs.count == set.count else { return nil }
        result.setPSNR(psnrs)
        return result
    }

    /// A 1080p24 H.264 clip of testsrc2 for the players.
    func clip() -> String? {
        let path = "\(workDir)/testsrc2-1080p24-\(mediaSeconds)s.mkv"
        if FileManager.default.fileExists(atPath: path) { return path }
        let argv = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=24", "-t", "\(mediaSeconds)",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p", "-y", path]
        return Spawn.run(argv).status == 0 ? path : nil
    }

    func players() -> [Player] {
        guard let clip = clip() else {
            print("players: skipped (ffmpeg with libx264 needed for the clip)")
            return []
        }
        let media = Double(mediaSeconds)
        var result: [Player] = []
        if Spawn.which("mpv") != nil {
            let common = ["mpv", "--no-config", "--really-quiet", "--no-audio", "--untimed", "--framedrop=no",
                          "--no-input-terminal", "--hwdec=no"]
            let runs: [(String, [String])] = [
                ("mpv --vo=null", ["--vo=null"]),
                ("mpv --vo=tct", ["--vo=tct", "--vo-tct-width=160", "--vo-tct-height=48"]),
                ("mpv --vo=tct --vo-tct-256", ["--vo=tct", "--vo-tct-width=160", "--vo-tct-height=48", "--vo-tct-256=yes"]),
                ("mpv --vo=sixel", ["--vo=sixel", "--vo-sixel-width=1280", "--vo-sixel-height=768",
                                    "--vo-sixel-reqcolors=\(colors)", "--vo-sixel-dither=none"]),
            ]
            for (name, extra) in runs {
                let out = "\(workDir)/peer-\(name.replacingOccurrences(of: " ", with: "_")).out"
                let m = Spawn.run(common + extra + [clip], stdoutPath: out)
                let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
                var frames: Int?
                if name.contains("sixel"), let data = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: out))) {
                    frames = SixelStreamDecoder.images(in: data).count
                }
                if m.status == 0 { result.append(Player(name: name, cpuSeconds: m.cpuSeconds, bytes: bytes, media: media, frames: frames)) }
                else { print("\(name): exited with status \(m.status)") }
            }
        } else {
            print("mpv: not installed")
        }
        if Spawn.which("timg") != nil {
            let out = "\(workDir)/peer-timg.out"
            // Real-time playback (timg has no untimed mode); half blocks at 160x48.
            let m = Spawn.run(["timg", "-g160x48", "-ph", "-V", "--threads=1", clip], stdoutPath: out)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
            if m.status == 0 { result.append(Player(name: "timg -ph (half blocks)", cpuSeconds: m.cpuSeconds, bytes: bytes, media: media)) }
            else { print("timg: exited with status \(m.status)") }
        } else {
            print("timg: not installed")
        }
        return result
    }
}
