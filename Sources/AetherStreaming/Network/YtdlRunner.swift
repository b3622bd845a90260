import AetherBase
import AetherMedia
import Foundation

/// Runs yt-dlp on a page URL (`yt-dlp -J --no-playlist [-f FORMAT] [--KEY VALUE]… -- URL`, an
/// argv, never a shell) within a budget: ``PageMedia/outputBudget`` bytes of output, the
/// settings' seconds of run time, and the load's cancel token; then reads its answer as
/// ``PageMedia``. Every failure is one line.
package enum YtdlRunner {
    /// The program's path: a path as given, or the first executable of that name in `PATH`.
    static func locate(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = "\(dir)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func arguments(url: String, settings: YtdlSettings) -> [String] {
        var argv = ["-J", "--no-playlist", "--no-warnings", "--no-progress"]
        if let format = settings.format { argv += ["-f", format] }
        for (key, value) in settings.rawOptions {
            argv.append("--\(key)")
            if !value.isEmpty { argv.append(value) }
        }
        return argv + ["--", url]
    }

    /// The page's budget: what is read of a URL libavformat found no media in, to see whether
    /// it is a web page.
    package static let pageBudget = 8 << 20

    /// Whether `bytes` begin as an HTML document does (after a byte-order mark, white space and
    /// comments, within the first KiB): only such a page goes to yt-dlp, so a playlist, a
    /// manifest or a damaged file keeps its own error (and its own rules).
    package static func looksLikeHTML(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
        let trimmed = head.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        return ["<!doctype html", "<html", "<head", "<body", "<!--", "<meta", "<title", "<video"].contains { trimmed.hasPrefix($0) }
    }

    /// What yt-dlp names on `url` when it is a web page: its body read once more within
    /// ``pageBudget`` (however it is served: HTTP/1.0 or 1.1, with or without a length or a type)
    /// and found to be HTML. nil when it is not a page (the caller keeps its own error); throws
    /// when it is one yt-dlp cannot read. Playback and `probe` both come here.
    package static func media(onPage url: String, network: NetworkSettings, settings: YtdlSettings, interrupt: InterruptToken,
                              timeout: Double) throws(PlayerError) -> PageMedia? {
        guard let options = try? SourceOptions.make(network: network),
              let body = try? SmallFetch.bytes(url, options: options, settings: network, interrupt: interrupt,
                                               timeout: timeout, limit: pageBudget),
              looksLikeHTML(body) else { return nil }
        return try resolve(url: url, settings: settings, interrupt: interrupt)
    }

    package static func resolve(url: String, settings: YtdlSettings, interrupt: InterruptToken) throws(PlayerError) -> PageMedia {
        let name = TextSanitizer.clean(url)
        guard let program = locate(settings.program) else {
            throw PlayerError("cannot open '\(name)': not media, and \(settings.program) is not installed to read the page (install yt-dlp, or --ytdl=no)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments(url: url, settings: settings)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw PlayerError("cannot open '\(name)': \(settings.program) did not start (\(error.localizedDescription))")
        }
        AppLog.write("ytdl", "running \(program) \(process.arguments?.map { TextSanitizer.clean($0) }.joined(separator: " ") ?? "")")
        // Two readers, each with a budget; the deadline and the cancel token end the process.
        let output = Guarded<[UInt8]>([]), errors = Guarded<[UInt8]>([]), overBudget = Guarded(false)
        let group = DispatchGroup()
        for (handle, store, isOutput) in [(out.fileHandleForReading, output, true), (err.fileHandleForReading, errors, false)] {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var dropping = false
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return }
                    // Past the budget the rest is read and dropped, so the process never blocks.
                    if dropping { continue }
                    let full = store.withLock { bytes -> Bool in
                        bytes += chunk
                        if isOutput { return bytes.count > PageMedia.outputBudget }
                        if bytes.count > 64 << 10 { bytes.removeFirst(bytes.count - (64 << 10)) }  // its last lines matter
                        return false
                    }
                    if full {
                        dropping = true
                        store.withLock { $0 = [] }
                        overBudget.withLock { $0 = true }
                        kill(process.processIdentifier, SIGKILL)
                    }
                }
            }
        }
        let deadline = MonotonicClock.seconds() + max(1, settings.timeout)
        var timedOut = false
        while group.wait(timeout: .now() + 0.05) == .timedOut {
            if interrupt.isCancelled || MonotonicClock.seconds() > deadline {
                timedOut = !interrupt.isCancelled
                kill(process.processIdentifier, SIGKILL)
                _ = group.wait(timeout: .now() + 5)
                break
            }
        }
        process.waitUntilExit()
        if interrupt.isCancelled { throw PlayerError("cannot open '\(name)': interrupted") }
        if timedOut { throw PlayerError("cannot open '\(name)': \(settings.program) did not answer within \(String(format: "%g", settings.timeout)) s") }
        if overBudget.withLock({ $0 }) { throw PlayerError("cannot open '\(name)': \(settings.program)'s answer is larger than \(PageMedia.outputBudget >> 20) MiB") }
        guard process.terminationStatus == 0 else {
            // Its last ERROR line says why ("Unsupported URL", ...).
            let text = String(decoding: errors.withLock { $0 }, as: UTF8.self)
            let lines = text.split(whereSeparator: \.isNewline).map(String.init)
            let why = (lines.last { $0.hasPrefix("ERROR:") } ?? lines.last).map { TextSanitizer.clean(String($0.prefix(300))) }
                ?? "exit status \(process.terminationStatus)"
            throw PlayerError("cannot open '\(name)': not media, and \(settings.program) found none: \(why)")
        }
        do {
            return try PageMedia.parse(output.withLock { $0 })
        } catch {
            throw PlayerError("cannot open '\(name)': \(error.message)")
        }
    }
}
