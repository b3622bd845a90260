/// The play options `aether-tui --help` shows (as `mpv --help` shows its common ones): their
/// names here, their values and help from the play command's own description of them
/// (``ConfigArguments/shapes``), so the two helps cannot disagree.
enum CommonOptionsHelp {
    static let names = ["vo", "start", "length", "pause", "volume", "speed", "aid", "sid", "sub-file", "alang", "slang",
                        "loop-file", "hls-bitrate", "input-ipc-server"]

    /// The root command's discussion: ``text`` when the arguments ask for a help (reading the
    /// play options' description takes a few ms, about a tenth of the start-up, which every
    /// start would pay otherwise; only a help shows the discussion).
    static var discussion: String {
        let asked = CommandLine.arguments.dropFirst().contains { $0 == "--help" || $0 == "-h" || $0 == "help" }
        return asked ? text : ""
    }

    static var text: String {
        let shapes = ConfigArguments.shapes
        let lines = names.compactMap { name -> String? in
            guard let shape = shapes[name] else { return nil }
            let value = shape.takesValue && !shape.valueName.isEmpty ? " <\(shape.valueName)>" : ""
            return "  --\(name)\(value)\n        \(gist(of: shape.help))"
        }
        return "Common play options (all of them: aether-tui help play; one line each: aether-tui --list-options):\n"
            + lines.joined(separator: "\n") + "\n\n" + ignoredText
    }

    /// The line naming mpv's options that are accepted and ignored (``MpvSpellings/ignored``).
    static var ignoredText: String {
        "Accepted and ignored, as mpv's options that mean nothing here (a software path in a terminal): "
            + MpvSpellings.ignored.map { "--" + $0.name }.joined(separator: ", ")
            + "; --vo naming mpv's window outputs (" + MpvSpellings.windowOutputs.sorted().joined(separator: ", ") + ") is --vo=auto."
    }

    /// `--list-options`, as mpv's: every play option on one line, sorted, with what it takes, the
    /// gist of its help and its default (a flag's `--no-` form beside it); mpv's other names
    /// for ours (``MpvSpellings``) each on a line saying which.
    static var list: String {
        let shapes = ConfigArguments.shapes.merging(ConfigArguments.shapes(of: CommonOptions._dumpHelp())) { a, _ in a }
        var lines: [String] = []
        let ignored = Dictionary(MpvSpellings.ignored.map { ($0.name, $0.why) }) { a, _ in a }
        for name in Set(shapes.keys).union(MpvSpellings.aliases.keys).union(ignored.keys).sorted() {
            if shapes[name] == nil, let why = ignored[name] {
                lines.append(("--" + name).paddedOrCut(to: 34) + "mpv's, accepted and ignored (\(why))")
                continue
            }
            if shapes[name] == nil, let alias = MpvSpellings.aliases[name] {
                lines.append(("--" + name).paddedOrCut(to: 34) + "mpv's name for --\(alias.name)" + (alias.bare.map { "=\($0)" } ?? ""))
                continue
            }
            guard let shape = shapes[name], !(name.hasPrefix("no-") && shapes[String(name.dropFirst(3))] != nil) else { continue }
            var head = "--" + name
            if shape.takesValue { head += "=<\(shape.valueName.isEmpty ? "value" : shape.valueName)>" }
            if !shape.takesValue, shapes["no-" + name] != nil { head += ", --no-" + name }
            var line = head.count < 34 ? head.paddedOrCut(to: 34) : head + "  "
            line += gist(of: shape.help)
            if let value = shape.defaultValue, shape.takesValue, !value.isEmpty { line += " (default: \(value))" }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What an option's help says before its first detail: up to the first ". ", ": " or " (".
    static func gist(of help: String) -> String {
        var end = help.endIndex
        for mark in [". ", ": ", " ("] {
            if let r = help.firstRange(of: mark), r.lowerBound < end { end = r.lowerBound }
        }
        var gist = String(help[..<end])
        if gist.hasSuffix(".") { gist.removeLast() }
        return gist
    }
}
