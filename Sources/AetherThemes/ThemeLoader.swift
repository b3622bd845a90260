import AetherBase
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds, reads and parses `.theme` files.
///
/// Search order for a theme NAME (first match wins):
/// 1. `$XDG_CONFIG_HOME/aether-tui/themes/NAME.theme` (`~/.config` when unset), the user's own;
/// 2. `$AETHER_TUI_THEMES_DIR/NAME.theme`;
/// 3. `<executable dir>/../share/aether-tui/themes/NAME.theme`, an installed copy;
/// 4. `themes/NAME.theme` in the source tree, found by walking up from the executable's directory
///    to a directory holding `Package.swift` (so a fresh `swift build` finds the shipped themes);
/// 5. for `default` only, ``Theme/builtinDefault``.
public enum ThemeLoader {
    /// The most a theme file may hold; guards against `--theme /dev/zero`.
    static let maximumFileSize = 1 << 20

    /// Parses theme text. `name` becomes ``Theme/name``; `file` is used in error messages only.
    /// Roles the text does not set take ``Theme/builtinDefault``'s styles.
    public static func parse(_ text: String, name: String, file: String) throws(ThemeError) -> Theme {
        let entries = try ThemeParser.entries(text, file: file)
        return Theme(name: name, styles: entries.mapValues(\.style))
    }

    /// Loads `NAME` or a path. It is a path if it contains "/" or ends in ".theme" (a leading `~/`
    /// is the home directory); otherwise a name looked up as described on ``ThemeLoader``.
    /// `environment` is the process environment (`ProcessInfo.processInfo.environment`);
    /// `executablePath` the running binary (`Bundle.main.executablePath`), used to find the bundled
    /// themes.
    public static func load(_ nameOrPath: String, environment: [String: String], executablePath: String) throws(ThemeError) -> Theme {
        if isPath(nameOrPath) {
            return try loadFile(Paths.expandingTilde(nameOrPath, environment: environment), shownAs: nameOrPath)
        }
        let name = nameOrPath
        if !name.isEmpty {
            for directory in searchDirectories(environment: environment, executablePath: executablePath) {
                let path = directory + "/" + name + ".theme"
                if isRegularFile(path) { return try loadFile(path, shownAs: path) }
            }
            if name == Theme.builtinDefault.name { return .builtinDefault }
        }
        var message = "no theme named \(name.themeQuoted) (available: "
            + available(environment: environment, executablePath: executablePath).joined(separator: ", ")
        if let user = userDirectory(environment: environment) { message += "; your own themes go in \(user)" }
        throw ThemeError(.notFound, file: name, message: message + ")")
    }

    /// Names of every theme ``load(_:environment:executablePath:)`` can find by name, sorted,
    /// always including `default`.
    public static func available(environment: [String: String], executablePath: String) -> [String] {
        var names: Set<String> = [Theme.builtinDefault.name]
        for directory in searchDirectories(environment: environment, executablePath: executablePath) {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for file in files where file.hasSuffix(".theme") && file.count > ".theme".count
                && isRegularFile(directory + "/" + file) {
                names.insert(String(file.dropLast(".theme".count)))
            }
        }
        return names.sorted()
    }

    /// True if `NO_COLOR` asks for no colour: set and not empty (https://no-color.org).
    public static func noColorRequested(environment: [String: String]) -> Bool {
        !(environment["NO_COLOR"] ?? "").isEmpty
    }

    // MARK: - Search path

    static func isPath(_ nameOrPath: String) -> Bool {
        nameOrPath.contains("/") || nameOrPath.hasSuffix(".theme")
    }

    /// `$XDG_CONFIG_HOME/aether-tui/themes`, or `$HOME/.config/…`. The XDG spec says a relative
    /// `XDG_CONFIG_HOME` is invalid and must be ignored.
    static func userDirectory(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/aether-tui/themes"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return home + "/.config/aether-tui/themes"
        }
        return nil
    }

    /// Where themes are looked for, highest priority first (see ``ThemeLoader``).
    static func searchDirectories(environment: [String: String], executablePath: String) -> [String] {
        var directories: [String] = []
        if let user = userDirectory(environment: environment) { directories.append(user) }
        if let bundled = environment["AETHER_TUI_THEMES_DIR"], !bundled.isEmpty { directories.append(bundled) }
        // Without a "/" the path is a bare argv[0] found through PATH; its directory is unknown.
        if executablePath.contains("/") {
            let binDirectory = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
            directories.append(binDirectory.appendingPathComponent("../share/aether-tui/themes").standardizedFileURL.path)
            var directory = binDirectory.standardizedFileURL
            for _ in 0..<8 {
                if isRegularFile(directory.appendingPathComponent("Package.swift").path),
                   isDirectory(directory.appendingPathComponent("themes").path) {
                    directories.append(directory.appendingPathComponent("themes").path)
                    break
                }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        var seen: Set<String> = []
        return directories.filter { seen.insert($0).inserted }
    }

    // MARK: - Files

    static func loadFile(_ path: String, shownAs shown: String) throws(ThemeError) -> Theme {
        let text = try readText(path, shownAs: shown)
        var name = URL(fileURLWithPath: path).lastPathComponent
        if name.hasSuffix(".theme") { name = String(name.dropLast(".theme".count)) }
        return try parse(text, name: name, file: shown)
    }

    /// The file's text, read by ``FileBytes`` so errors carry the system's own words.
    static func readText(_ path: String, shownAs shown: String) throws(ThemeError) -> String {
        func unreadable(_ reason: String) -> ThemeError { ThemeError(.unreadable, file: shown, message: reason) }
        let bytes: [UInt8]
        switch FileBytes.read(path: path, limit: maximumFileSize) {
        case .success(let read): bytes = read
        case .failure(.overLimit): throw unreadable("larger than \(maximumFileSize / 1024) KiB; not a theme file")
        case .failure(let error): throw unreadable(error.reason)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw unreadable("not UTF-8 text") }
        return text
    }

    /// Not a directory (what FileManager's `isDirectory` told: a device or a pipe counts as a file).
    static func isRegularFile(_ path: String) -> Bool { fileType(path).map { $0 != S_IFDIR } ?? false }

    static func isDirectory(_ path: String) -> Bool { fileType(path) == S_IFDIR }

    /// stat(2)'s file type (links followed); nil when there is nothing there.
    private static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }
}
