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

    @Test func onlyAetherBaseReadsTheSystemsTime() throws {
        let sources = TestEnvironment.root.appendingPathComponent("Sources").path
        let allowed = sources + "/AetherBase/"
        var found: [String] = []
        let files = try #require(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 300, "the sources were found")
        for file in files where !(sources + "/" + file).hasPrefix(allowed) {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                if let read = Self.reads.first(where: { code.contains($0) }) { found.append("\(file):\(n + 1): \(read)") }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// #60 item 3: a clock is a required parameter wherever it decides something: no parameter
    /// of type `TimeSource` has a default (a caller that forgot would get the real clock
    /// silently), but in the composition roots (the executables). Each found with its line.
    @Test func noClockParameterHasADefault() throws {
        let sources = TestEnvironment.root.appendingPathComponent("Sources").path
        let roots = ["aether-tui/", "aether-bench/", "aether-fuzz/"]
        var found: [String] = []
        let files = try #require(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        for file in files where !roots.contains(where: { file.hasPrefix($0) }) {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                // `clock: TimeSource = …` in a parameter list (a stored property's `var time = …` is no parameter).
                if code.range(of: #"\w+: TimeSource\s*=\s*"#, options: .regularExpression) != nil, !code.contains("var "), !code.contains("let ") {
                    found.append("\(file):\(n + 1): \(code.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// #60 item 3: the real clock (``TimeSource/monotonic``) is chosen only where a program
    /// starts: the executables (their composition roots) and the test harness's processes
    /// (`AetherLoopback`, whose servers and children run in real time). Everything else is given
    /// its clock: there is no default to fall back on (`PlayerOptions(time:)`, `InterruptToken(clock:)`
    /// and `Stopwatch(clock:)` require one), and no stored `= .monotonic` either. Each found with its line.
    @Test func theRealClockIsChosenOnlyAtTheRoots() throws {
        let sources = TestEnvironment.root.appendingPathComponent("Sources").path
        let roots = ["aether-tui/", "aether-bench/", "aether-fuzz/", "AetherLoopback/", "AetherBase/"]
        var found: [String] = []
        let files = try #require(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        for file in files where !roots.contains(where: { file.hasPrefix($0) }) {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                if code.range(of: #"\.monotonic\b"#, options: .regularExpression) != nil {
                    found.append("\(file):\(n + 1): \(code.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
