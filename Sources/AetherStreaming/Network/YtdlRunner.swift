import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Runs yt-dlp on a page URL (`yt-dlp -J --no-playlist --flat-playlist [-f FORMAT] [--KEY VALUE]… -- URL`, an
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
        // A page of several videos: their URLs and titles, each read when its turn comes.
        var argv = ["-J", "--no-playlist", "--flat-playlist", "--no-warnings", "--no-progress"]
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
                              timeout: Double) throws(PageError) -> PageAnswer? {
        guard let options = try? SourceOptions.make(network: network),
              let body = try? SmallFetch.bytes(url, options: options, settings: network, interrupt: interrupt,
                                               timeout: timeout, limit: pageBudget),
              looksLikeHTML(body) else { return nil }
        return try resolve(url: url, settings: settings, interrupt: interrupt)
    }

    package static func resolve(url: String, settings: YtdlSettings, interrupt: InterruptToken) throws(PageError) -> PageAnswer {
        let name = TextSanitizer.clean(url)
        guard let program = locate(settings.program) else {
            throw PageError("cannot open '\(name)': not media, and \(settings.program) is not installed to read the page (install yt-dlp, or --ytdl=no)")
        }
        let args = arguments(url: url, settings: settings)
        AppLog.write("ytdl", "running \(program) \(args.map { TextSanitizer.clean($0) }.joined(separator: " "))")
        // Both streams read within a budget; the deadline and the cancel token end the process.
        let run: ChildProcess.Result
        do {
            run = try ChildProcess.run(program, args, outputLimit: PageMedia.outputBudget, killOverBudget: true, errorTail: 64 << 10,
                                       timeout: max(1, settings.timeout), cancelled: { interrupt.isCancelled })
        } catch {
            throw PageError("cannot open '\(name)': \(settings.program) did not start (\(error.message))")
        }
        if run.cancelled || interrupt.isCancelled { throw PageError("cannot open '\(name)': interrupted") }
        if run.timedOut { throw PageError("cannot open '\(name)': \(settings.program) did not answer within \(String(cFormat: "%g", settings.timeout)) s") }
        if run.outputOverBudget { throw PageError("cannot open '\(name)': \(settings.program)'s answer is larger than \(PageMedia.outputBudget >> 20) MiB") }
        guard run.exitCode == 0 else {
            // Its last ERROR line says why ("Unsupported URL", ...).
            let text = String(decoding: run.errors, as: UTF8.self)
            let lines = text.split(whereSeparator: \.isNewline).map(String.init)
            let why = (lines.last { $0.hasPrefix("ERROR:") } ?? lines.last).map { TextSanitizer.clean(String($0.prefix(300))) }
                ?? run.exitCode.map { "exit status \($0)" } ?? "killed by a signal"
            throw PageError("cannot open '\(name)': not media, and \(settings.program) found none: \(why)")
        }
        do {
            return try PageAnswer.parse(run.output)
        } catch {
            throw PageError("cannot open '\(name)': \(error.message)")
        }
    }
}
