import AetherEngine
import ArgumentParser
import Foundation

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a file or URL contains (like ffprobe, for humans first).")

    @Argument(help: ArgumentHelp("A media file or a URL libavformat can open.", valueName: "file|url"))
    var source: String

    @Flag(help: "Print JSON for scripts instead of the human report.")
    var json = false

    @Option(name: .customLong("http-header"), help: ArgumentHelp("Extra HTTP header for network sources (repeatable).", valueName: "field: value"))
    var httpHeaders: [String] = []

    @OptionGroup var common: CommonOptions

    func run() throws {
        try common.configureLogging()
        var options: [String: String] = [:]
        if !httpHeaders.isEmpty { options["headers"] = httpHeaders.joined(separator: "\r\n") + "\r\n" }
        let info: MediaInfo
        do {
            info = try MediaProbe.probe(url: source, options: options)
        } catch {
            throw fail("cannot open '\(source)': \(error.message)")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(info)
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(ProbeReport.render(info), terminator: "")
        }
    }
}
