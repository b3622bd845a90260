@testable import AetherBase
import Foundation
import Testing

/// The product links FoundationEssentials only (7 MB less resident than Foundation's three
/// libraries); what it used of Foundation has a home in AetherBase. These check each against
/// Foundation, which the tests still have, on the cases the program meets. Tier: unit.
struct FoundationFreeTests {
    /// NSString's answers, written out (corelibs' NSString traps in `_startOfLastPathComponent`
    /// on some of these when called in a loop, so it cannot be asked here): path → last
    /// component, without it, extension, without the extension.
    static let paths: [(String, String, String, String, String)] = [
        ("a", "a", "", "", "a"), ("/a", "a", "/", "", "/a"), ("a/", "a", "", "", "a"), ("/a/", "a", "/", "", "/a"),
        ("/a/b.mkv", "b.mkv", "/a", "mkv", "/a/b"), ("a/b.tar.gz", "b.tar.gz", "a", "gz", "a/b.tar"),
        ("/a//b/", "b", "/a", "", "/a/b"), (".profile", ".profile", "", "", ".profile"),
        ("/x/.profile", ".profile", "/x", "", "/x/.profile"), ("dir/file.", "file.", "dir", "", "dir/file."),
        ("http://host/dir/list.m3u8", "list.m3u8", "http:/host/dir", "m3u8", "http:/host/dir/list"),
        ("/tmp/ünï/çödé.mkv", "çödé.mkv", "/tmp/ünï", "mkv", "/tmp/ünï/çödé"), ("a/../b", "b", "a/..", "", "a/../b"),
        ("/", "/", "/", "", "/"), ("", "", "", "", ""),
    ]

    @Test func pathsAsNSStringTreatedThem() {
        for (p, last, parent, ext, stem) in Self.paths {
            #expect(Paths.lastComponent(p) == last, "lastComponent '\(p)'")
            #expect(Paths.deletingLastComponent(p) == parent, "deletingLastComponent '\(p)'")
            #expect(Paths.pathExtension(p) == ext, "pathExtension '\(p)'")
            #expect(Paths.deletingPathExtension(p) == stem, "deletingPathExtension '\(p)'")
        }
        let joins = [("a", "b", "a/b"), ("a/", "b", "a/b"), ("/a", "/b", "/a/b"), ("/a/", "b/", "/a/b"), ("a", "", "a"), ("", "b", "b"),
                     ("http://host/dir", "x.m3u8", "http:/host/dir/x.m3u8"), ("/", "b", "/b"), ("/home/u", ".config", "/home/u/.config"),
                     ("/s", "aether-tui/terminals.json", "/s/aether-tui/terminals.json")]
        for (base, component, joined) in joins { #expect(Paths.join(base, component) == joined, "join '\(base)' '\(component)'") }
        for (p, standard) in [("/a/b/../c", "/a/c"), ("/a/./b", "/a/b"), ("//a//b/", "/a/b"), ("/../a", "/a"), ("/a/b/..", "/a")] {
            #expect(Paths.standardize(p) == standard, "standardize '\(p)'")
        }
        #expect(Paths.home(environment: ["HOME": "/home/x"]) == "/home/x")
        #expect(Paths.temporaryDirectory(environment: [:]) == "/tmp/" && Paths.temporaryDirectory(environment: ["TMPDIR": "/t"]) == "/t/")
    }

    /// printf's numbers, in the C locale whatever the process's (a German LC_NUMERIC wrote `1,5`).
    @Test func cFormatIsPrintfInTheCLocale() {
        let cases: [(String, [CVarArg])] = [("%.2f", [1.5]), ("%02d:%02d", [7, 5]), ("%08llx", [UInt64(0xABCDEF)]), ("%+.1f dB", [-3.25]),
                                            ("%g", [0.25]), ("%g", [4.0]), ("%5.1f%%", [99.94]), ("%9.6f", [1.0 / 3]), ("%d", [Int.max])]
        for (format, arguments) in cases {
            #expect(CFormat.format(format, arguments) == String(format: format, arguments: arguments), "\(format)")
        }
        let long = String(cFormat: "%0200d", 7)
        #expect(long.count == 200 && long.hasSuffix("7"))
        if let german = newlocale(1 << LC_NUMERIC, "de_DE.UTF-8", nil) ?? newlocale(1 << LC_NUMERIC, "C.UTF-8", nil) {
            let previous = uselocale(german)
            defer { uselocale(previous); freelocale(german) }
            #expect(String(cFormat: "%.1f", 1.5) == "1.5")
        }
    }

    @Test func stringEditsAsFoundationMadeThem() {
        let texts = ["  a b \t", "\n x\r\n", "", "   ", "\u{00A0}nbsp\u{2003}", "a\r\nb\nc\rd", "-->x-->", "&<>\"", "..name.."]
        for t in texts {
            #expect(t.trimmingWhitespace() == t.trimmingCharacters(in: .whitespaces), "'\(t)'")
            #expect(t.trimmingWhitespaceAndNewlines() == t.trimmingCharacters(in: .whitespacesAndNewlines), "'\(t)'")
            #expect(t.trimming(while: { $0 == "." }) == t.trimmingCharacters(in: CharacterSet(charactersIn: ".")), "'\(t)'")
            for (a, b) in [("\n", " "), ("\r\n", "\n"), ("\r", "\n"), ("-->", "--&gt;"), ("&", "&amp;"), ("\"", "%22"), ("x", "")] {
                #expect(t.replacingAll(a, with: b) == t.replacingOccurrences(of: a, with: b), "'\(t)' \(a)")
            }
            #expect(t.trimmingTrailingWhitespace() == t.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression), "'\(t)'")
        }
        for (t, n) in [("abc", 5), ("abcdef", 3), ("", 2)] {
            #expect(t.paddedOrCut(to: n) == t.padding(toLength: n, withPad: " ", startingAt: 0))
        }
        #expect("ab".leftAligned(5) == "ab   " && "abcdef".leftAligned(3) == "abcdef")
    }

    /// A thread gets its name, cut to Linux's 15 bytes.
    @Test func threadsAreNamed() {
        let seen = GuardedCondition<String?>(nil)
        OSThread.start(name: "aether.a-long-thread-name", stackSize: 1 << 20) {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            seen.update { $0 = name.trimmingCharacters(in: .newlines) }
        }
        #expect(seen.wait(until: { $0 != nil }, timeout: 5))
        #expect(seen.withLock { $0 } == "aether.a-long-t")
    }

    /// A child's output, its errors' tail, its exit code; a late child killed; a child that
    /// does not read its input does not take the player down (SIGPIPE).
    @Test func childProcessesRunToTheirEnd() throws {
        let echo = try ChildProcess.run("/bin/sh", ["-c", "printf out; printf err >&2; exit 3"], outputLimit: 100, errorTail: 100, timeout: 10)
        #expect(String(decoding: echo.output, as: UTF8.self) == "out" && String(decoding: echo.errors, as: UTF8.self) == "err" && echo.exitCode == 3)
        let cat = try ChildProcess.run("/bin/cat", [], input: Array(repeating: 0x61, count: 200_000), outputLimit: 1 << 20, timeout: 10)
        #expect(cat.output.count == 200_000 && cat.exitCode == 0)
        // A child that would end by itself after 30 s, with exit code 0: a run that ignored its
        // deadline would wait for that clean exit; one that keeps it kills the child, late.
        let late = try ChildProcess.run("/usr/bin/sleep", ["30"], outputLimit: 10, timeout: 0.3)
        #expect(late.timedOut && late.exitCode == nil, "exit code \(late.exitCode.map(String.init) ?? "none (a signal)")")
        let deaf = try ChildProcess.run("/bin/true", [], input: Array(repeating: 0, count: 4 << 20), outputLimit: 10, timeout: 10)
        #expect(deaf.exitCode == 0)
        let over = try ChildProcess.run("/bin/sh", ["-c", "yes | head -c 100000"], outputLimit: 1000, killOverBudget: true, timeout: 10)
        #expect(over.outputOverBudget && over.output.count == 1000)
        #expect(throws: ChildProcess.SpawnError.self) { try ChildProcess.run("/nonexistent/tool", [], outputLimit: 10, timeout: 1) }
    }

    /// A pipe's ends are close-on-exec from the start: a child started while the pipe is open
    /// (here by this thread; in the player, maybe by another) does not hold either end.
    @Test func pipesAreNotInheritedByChildren() throws {
        var ends: [Int32] = [-1, -1]
        try #require(SystemPipe.make(&ends))
        defer { ends.forEach { _ = close($0) } }
        #expect(ends.allSatisfy { fcntl($0, F_GETFD) & FD_CLOEXEC != 0 })
        let listing = try ChildProcess.run("/bin/ls", ["/proc/self/fd"], outputLimit: 1 << 16, timeout: 10)
        let open = Set(String(decoding: listing.output, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) })
        #expect(open.contains(1) && open.isDisjoint(with: ends), "the child holds \(open.sorted()); the pipe is \(ends)")
    }

    /// The one file reader: whole files within the budget, a file's head, links and what is not
    /// a regular file refused where asked, the system's own reasons.
    @Test func filesAreReadWithinTheirBudget() throws {
        let dir = NSTemporaryDirectory() + "aether-filebytes-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/ten", link = dir + "/link"
        try Data("0123456789".utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(FileBytes.read(path: file, limit: 10) == .success(Array("0123456789".utf8)))
        #expect(FileBytes.read(path: file, limit: 9) == .failure(.overLimit))
        #expect(FileBytes.read(path: file, limit: 4, truncating: true) == .success(Array("0123".utf8)))
        #expect(FileBytes.prefix(path: file, limit: 100) == Array("0123456789".utf8))
        #expect(FileBytes.read(path: link, limit: 10) == .success(Array("0123456789".utf8)))
        #expect(FileBytes.read(path: link, limit: 10, followLinks: false) == .failure(.system(ELOOP)))
        #expect(FileBytes.read(path: "/dev/null", limit: 10, regularOnly: true) == .failure(.notARegularFile))
        #expect(FileBytes.read(path: dir, limit: 10, regularOnly: true) == .failure(.notARegularFile))
        #expect(FileBytes.read(path: dir, limit: 10) == .failure(.system(EISDIR)))
        #expect(FileBytes.read(path: dir + "/none", limit: 10) == .failure(.system(ENOENT)))
        #expect(FileBytes.ReadError.system(ENOENT).reason == "No such file or directory")
        // /proc files report size 0 and are read to their end.
        #expect((FileBytes.prefix(path: "/proc/self/status", limit: 1 << 16) ?? []).count > 100)
    }

    @Test func systemReasonsAreStrerrorsWords() {
        do {
            try FileManager.default.removeItem(atPath: "/nonexistent/aether-\(getpid())")
            Issue.record("removed a file that is not there")
        } catch {
            #expect(error.systemReason == "No such file or directory")
        }
    }
}
