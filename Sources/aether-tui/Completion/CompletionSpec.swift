import ArgumentParser
import FoundationEssentials

/// What the shell completions complete, read from the parser's own description of the command
/// line (`--experimental-dump-help`'s JSON, `_dumpHelp()`): every option, its spellings, whether
/// it takes a value and which values (an enum's cases, files, directories), each subcommand's
/// operands. A new option is completed as its declaration says, with no edit here: an enum
/// (`CaseIterable`) type lists its cases, `completion: .file()` or `.directory` names paths,
/// `.shellCommand` a command that prints the candidates when the shell completes.
struct CompletionSpec: Equatable {
    /// What a value or an operand completes to.
    enum Values: Equatable {
        /// Anything the user types (a time, a number, a name): nothing is offered.
        case free
        case words([String])
        case files
        case directories
        /// The lines a shell command prints (`--theme=help`'s names).
        case command(String)
    }

    struct Option: Equatable {
        /// `--vo`, `-o`, `--output`.
        let spellings: [String]
        /// nil for a flag.
        let value: Values?
        let repeats: Bool
        /// The first sentence of the option's help.
        let summary: String
    }

    struct Command: Equatable {
        let name: String
        let summary: String
        let options: [Option]
        /// What its operands complete to (nil: it takes none).
        let operands: Values?

        /// The spellings of its options that take a value (a word after them is that value).
        var valued: [String] { options.filter { $0.value != nil }.flatMap(\.spellings) }
    }

    let program: String
    /// The command a line runs when it names no subcommand (`play`): the first of `commands`.
    let defaultCommand: String
    /// Every subcommand, the default first.
    let commands: [Command]

    var subcommandNames: [String] { commands.map(\.name) }
}

extension CompletionSpec {
    /// The spec of this program's command line.
    static var current: CompletionSpec {
        // The parser's own JSON of the program's commands: it cannot fail to decode but by a
        // change of the parser's format, which the completion tests would show at once.
        guard let spec = try? CompletionSpec(dump: Array(AetherTUICommand._dumpHelp().utf8),
                                             defaultCommand: Play._commandName) else {
            preconditionFailure("ArgumentParser's dump-help JSON changed its shape")
        }
        return spec
    }

    /// Reads `--experimental-dump-help`'s JSON (the parts completion needs); `defaultCommand`
    /// is the subcommand run when none is named.
    init(dump: [UInt8], defaultCommand: String) throws {
        let tool = try JSONDecoder().decode(ToolInfo.self, from: Data(dump))
        let subcommands = (tool.command.subcommands ?? []).filter { $0.shouldDisplay ?? true }
        let commands = subcommands.map { Command(node: $0, subcommands: subcommands.map(\.commandName)) }
        program = tool.command.commandName
        self.defaultCommand = defaultCommand
        self.commands = commands.filter { $0.name == defaultCommand } + commands.filter { $0.name != defaultCommand }
    }

    /// The first sentence of a help text, short enough for a completion menu's line, without
    /// its parenthesis; `listsValues`: without what follows a colon too (the values, which the
    /// menu shows).
    static func summary(_ text: String?, listsValues: Bool = false) -> String {
        func before(_ separator: String, _ text: String) -> String {
            text.split(separator: separator, maxSplits: 1).first.map(String.init) ?? text
        }
        let sentence = before(". ", before("\n", text ?? ""))
        let cut = listsValues ? before(": ", before(" (", sentence)) : before(" (", sentence)
        let trimmed = cut.hasSuffix(".") ? String(cut.dropLast()) : cut
        return trimmed.count <= 70 ? trimmed : String(trimmed.prefix(69)) + "…"
    }
}

private extension CompletionSpec.Command {
    init(node: ToolInfo.Node, subcommands: [String]) {
        let arguments = (node.arguments ?? []).filter { $0.shouldDisplay ?? true }
        name = node.commandName
        summary = CompletionSpec.summary(node.abstract)
        options = arguments.filter { $0.kind != "positional" }.map { argument in
            CompletionSpec.Option(spellings: (argument.names ?? []).map(\.spelling),
                                  value: argument.kind == "option" ? argument.values : nil,
                                  repeats: argument.isRepeating ?? false,
                                  summary: CompletionSpec.summary(argument.abstract, listsValues: argument.listsValues))
        }
        // `help`'s operand is a subcommand's name.
        let operand = arguments.first { $0.kind == "positional" }
        operands = node.commandName == "help" ? .words(subcommands) : operand.map(\.values)
    }
}

/// The part of ArgumentParser's `ToolInfoV0` (its `--experimental-dump-help` JSON) read here.
private struct ToolInfo: Decodable {
    let command: Node

    struct Node: Decodable {
        let commandName: String
        let abstract: String?
        let shouldDisplay: Bool?
        let arguments: [Argument]?
        let subcommands: [Node]?
    }

    struct Argument: Decodable {
        /// "positional", "option" or "flag".
        let kind: String
        let names: [Name]?
        let abstract: String?
        let isRepeating: Bool?
        let shouldDisplay: Bool?
        let allValues: [String]?
        let completionKind: Kind?

        var listsValues: Bool {
            if case .words = values { kind == "option" } else { false }
        }

        var values: CompletionSpec.Values {
            switch completionKind {
            case .list(let words): .words(words)
            case .file: .files
            case .directory: .directories
            case .command(let command): .command(command)
            case .other, nil: allValues.map { .words($0) } ?? .free
            }
        }
    }

    struct Name: Decodable {
        /// "long", "short" or "longWithSingleDash".
        let kind: String
        let name: String

        var spelling: String { kind == "long" ? "--" + name : "-" + name }
    }

    /// `completionKind`: one key naming the kind (`list`, `file`, `directory`, `shellCommand`,
    /// `custom` …), its payload inside.
    enum Kind: Decodable {
        case list([String])
        case file
        case directory
        case command(String)
        case other

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        private struct List: Decodable { let values: [String] }
        private struct Command: Decodable { let command: String }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let key = container.allKeys.first(where: { $0.stringValue == "list" }) {
                self = .list(try container.decode(List.self, forKey: key).values)
            } else if container.allKeys.contains(where: { $0.stringValue == "file" }) {
                self = .file
            } else if container.allKeys.contains(where: { $0.stringValue == "directory" }) {
                self = .directory
            } else if let key = container.allKeys.first(where: { $0.stringValue == "shellCommand" }) {
                self = .command(try container.decode(Command.self, forKey: key).command)
            } else {
                self = .other
            }
        }
    }
}
