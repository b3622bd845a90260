import AetherTestSupport
import Foundation
import Testing

/// The system's time is read in AetherBase only (its clocks, condition waits, the log's stamps;
/// unit tier): everything else is given
/// a `TimeSource` (decisions), a `SystemDeadline` (waits the kernel carries out), a `Stopwatch`
/// (costs) or a `WallClock` reading (UTC). A direct read anywhere else fails here, with its line.
@Suite struct ClockReadsTests {
    static let reads = ["MonotonicClock.", "ContinuousClock", "SuspendingClock", "clock_gettime", "CLOCK_MONOTONIC",
                        "CLOCK_REALTIME", "Date()", "Date.now", "gettimeofday", "DispatchTime.now"]

    /// Every line of code (comments cut) of the Swift sources outside the folders `except`
    /// (relative to `Sources/`), with where it is: the one walk of the sources these rules read.
    static func codeLines(except: [String]) throws -> [(place: String, code: String)] {
        let sources = TestEnvironment.root.appendingPathComponent("Sources").path
        let files = try #require(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 300, "the sources were found")
        var lines: [(place: String, code: String)] = []
        for file in files where !except.contains(where: { file.hasPrefix($0) }) {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                lines.append(("\(file):\(n + 1)", line.components(separatedBy: "//").first ?? ""))
            }
        }
        return lines
    }

    @Test func onlyAetherBaseReadsTheSystemsTime() throws {
        let found = try Self.codeLines(except: ["AetherBase/"]).compactMap { line in
            Self.reads.first(where: { line.code.contains($0) }).map { "\(line.place): \($0)" }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// #60 item 3: a clock is a required parameter wherever it decides something: no parameter
    /// of type `TimeSource` has a default (a caller that forgot would get the real clock
    /// silently), but in the composition roots (the executables). Each found with its line.
    @Test func noClockParameterHasADefault() throws {
        // `clock: TimeSource = …` in a parameter list (a stored property's `var time = …` is no parameter).
        let found = try Self.codeLines(except: ["aether-tui/", "aether-bench/", "aether-fuzz/"]).filter { line in
            line.code.range(of: #"\w+: TimeSource\s*=\s*"#, options: .regularExpression) != nil
                && !line.code.contains("var ") && !line.code.contains("let ")
        }.map { "\($0.place): \($0.code.trimmingCharacters(in: .whitespaces))" }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// #60 item 3: the real clock (``TimeSource/monotonic``) is chosen only where a program
    /// starts: the executables (their composition roots) and the test harness's processes
    /// (`AetherLoopback`, whose servers and children run in real time). Everything else is given
    /// its clock: there is no default to fall back on (`PlayerOptions(time:)`, `InterruptToken(clock:)`
    /// and `Stopwatch(clock:)` require one), and no stored `= .monotonic` either. Each found with its line.
    @Test func theRealClockIsChosenOnlyAtTheRoots() throws {
        let roots = ["aether-tui/", "aether-bench/", "aether-fuzz/", "AetherLoopback/", "AetherBase/"]
        let found = try Self.codeLines(except: roots).filter { $0.code.range(of: #"\.monotonic\b"#, options: .regularExpression) != nil }
            .map { "\($0.place): \($0.code.trimmingCharacters(in: .whitespaces))" }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
