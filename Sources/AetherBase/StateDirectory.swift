/// The XDG base directory for state (saved positions, what each terminal measured): one rule
/// for every file the program keeps there.
public enum StateDirectory {
    /// `$XDG_STATE_HOME` when it is absolute (the spec says a relative one is to be ignored),
    /// else `$HOME/.local/state` (the home directory when `HOME` is unset).
    public static func base(environment: [String: String]) -> String {
        environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? Paths.join(Paths.home(environment: environment), ".local/state")
    }

    /// `name` under the program's own state directory, `<base>/aether-tui/<name>`.
    public static func path(_ name: String, environment: [String: String]) -> String {
        Paths.join(base(environment: environment), "aether-tui/" + name)
    }
}
