import AetherControl
import AetherTestSupport
import Foundation
import Testing

/// #60 item 4: failure is typed at the top (unit tier). Each subcommand's `run()` throws a
/// ``CommandFailure`` and its `validate()` a `ValidationError`; the exit status is a function of
/// the failure, and no command makes its own status or prints its own failure.
@Suite struct TypedFailureTests {
    @Test func theStatusIsAFunctionOfTheFailure() {
        #expect(CommandFailure.usage("--speed must be between 0.25 and 4").status == ExitStatus.failed.rawValue)
        #expect(CommandFailure.failed("cannot open 'x'").status == ExitStatus.failed.rawValue)
        #expect(CommandFailure.incomplete("nothing to play").status == ExitStatus.incomplete.rawValue)
        #expect(CommandFailure.interrupted("interrupted").status == ExitStatus.interrupted.rawValue)
        for status in ExitStatus.allCases { #expect(CommandFailure.ended(.status(status)).status == status.rawValue) }
        #expect(CommandFailure.ended(.asked(42)).status == 42, "quit 42 ends with 42, as mpv's quit")
        #expect(CommandFailure.ended(.status(.partial)).line == nil, "a run's lines were said as its items failed")
        #expect(CommandFailure.failed("cannot open 'x'").line == "cannot open 'x'")
        #expect(RunEnd.status(.interrupted).interrupted && !RunEnd.asked(4).interrupted)
    }

    /// The commands' entry points, read from the sources: typed throws only, and no status made
    /// or failure printed outside `exit(with:)`.
    @Test func everyCommandThrowsItsTypedFailure() throws {
        let dir = TestEnvironment.root.appendingPathComponent("Sources/aether-tui").path
        var found: [String] = []
        var runs = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: dir) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                let at = "\(file):\(n + 1): \(code.trimmingCharacters(in: .whitespaces))"
                if code.contains("func run(") {
                    runs += 1
                    if !code.contains("throws(CommandFailure)") { found.append(at) }
                }
                if code.contains("func validate("), !code.contains("throws(ValidationError)") { found.append(at) }
                if code.contains("ExitCode(") || code.contains("ExitCode.") { found.append(at) }
            }
        }
        #expect(runs >= 7, "the subcommands' and the headless player's run() were found")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
