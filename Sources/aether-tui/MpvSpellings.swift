/// mpv's other spellings of the play options, turned into ours before the parser sees them: on
/// the command line and in the config file alike (one table, ``rename(_:_:)``).
///
/// - `--loop[=N]` is `--loop-file` (bare: `inf`), as in mpv; a bare `--loop-file` or
///   `--loop-playlist` is `=inf`.
/// - `--no-audio`, `--no-video`, `--no-sub` are `--aid=no`, `--vid=no`, `--sid=no`; `--audio`,
///   `--video` and `--sub` name `--aid`, `--vid` and `--sid`.
/// - A flag takes `=yes` and `=no` (`--mute=yes`, `--pause=no`): `--mute`, `--no-mute`; a flag
///   without a `--no-` form given `=no` is left out (it is off unless set).
enum MpvSpellings {
    /// Options of mpv's that are another name for one of ours: name → (our name, the value a
    /// bare use means; nil: it takes the value given).
    static let aliases: [String: (name: String, bare: String?)] = [
        "loop": ("loop-file", "inf"),
        "loop-file": ("loop-file", "inf"),
        "loop-playlist": ("loop-playlist", "inf"),
        "no-audio": ("aid", "no"),
        "no-video": ("vid", "no"),
        "no-sub": ("sid", "no"),
        "audio": ("aid", nil),
        "video": ("vid", nil),
        "sub": ("sid", nil),
    ]

    /// A config line's or an option's key and value in our spelling. A key the options have
    /// themselves is never renamed.
    static func rename(_ key: String, _ value: String?, options: [String: ConfigArguments.OptionShape]) -> (key: String, value: String?) {
        guard let alias = aliases[key], alias.name == key || options[key] == nil else { return (key, value) }
        if key.hasPrefix("no-") {
            // `--no-audio` (or `=yes`); anything else is left for the parser to refuse.
            return value == nil || value == "yes" ? (alias.name, alias.bare) : (key, value)
        }
        return (alias.name, value ?? alias.bare)
    }

    /// The command line in our spelling, up to `--` (after it, only files). A value given in
    /// the next word (`--aid 2`) is skipped, not read as an option.
    static func normalize(_ arguments: [String], options: [String: ConfigArguments.OptionShape]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < arguments.count {
            let word = arguments[i]
            i += 1
            if word == "--" { out += arguments[(i - 1)...]; break }
            guard word.hasPrefix("--"), word.count > 2 else { out.append(word); continue }
            let body = word.dropFirst(2)
            let key = String(body.prefix { $0 != "=" })
            let value = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            let (name, given) = rename(key, value, options: options)
            guard let shape = options[name] else { out.append(name == key && given == value ? word : form(name, given)); continue }
            if shape.takesValue {
                // `--title=` (an empty value): the parser takes it as a word of its own.
                if given == "" { out += ["--" + name, ""]; continue }
                out.append(form(name, given))
                // `--name value`: the next word is the value.
                if given == nil, i < arguments.count { out.append(arguments[i]); i += 1 }
            } else {
                switch given {
                case nil, "yes": out.append("--" + name)
                case "no": if options["no-" + name] != nil { out.append("--no-" + name) }
                default: out.append(word)   // the parser says what is wrong with it
                }
            }
        }
        return out
    }

    private static func form(_ name: String, _ value: String?) -> String {
        value.map { "--\(name)=\($0)" } ?? "--\(name)"
    }
}
