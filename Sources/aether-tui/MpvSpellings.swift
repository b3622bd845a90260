/// mpv's other spellings of the play options, turned into ours before the parser sees them: on
/// the command line and in the config file alike (one table, ``rename(_:_:)``).
///
/// - `--loop[=N]` is `--loop-file` (bare: `inf`), as in mpv; a bare `--loop-file` or
///   `--loop-playlist` is `=inf`.
/// - `--no-audio`, `--no-video`, `--no-sub` are `--aid=no`, `--vid=no`, `--sid=no`; `--audio`,
///   `--video` and `--sub` name `--aid`, `--vid` and `--sid`.
/// - A flag takes `=yes` and `=no` (`--mute=yes`, `--pause=no`): `--mute`, `--no-mute`; a flag
///   without a `--no-` form given `=no` is left out (it is off unless set).
/// - mpv's options that mean nothing on a software path in a terminal (``ignored``) are
///   accepted and left out, silently: an mpv user's config starts without a warning. `--vo`
///   naming mpv's window outputs (``windowOutputs``: `gpu`, `gpu-next` …) is `--vo=auto`.
enum MpvSpellings {
    /// mpv's options accepted and ignored, each with why (shown by `--list-options`; the help
    /// and the man page name them). Only `--name` and `--name=value` forms: a value in the next
    /// word would be taken for a file, so `--hwdec auto` plays a file named `auto`, as in mpv.
    static let ignored: [(name: String, why: String)] = [
        ("hwdec", "hardware decoding: frames are decoded on the CPU here"),
        ("hwdec-codecs", "hardware decoding: frames are decoded on the CPU here"),
        ("vd-lavc-dr", "direct rendering into GPU memory"),
        ("gpu-api", "the GPU renderer"), ("gpu-context", "the GPU renderer"),
        ("video-sync", "display-synced timing: the sound's clock paces the video here"),
        ("interpolation", "the GPU renderer's frame blending"), ("tscale", "the GPU renderer's frame blending"),
        ("scale", "the GPU renderer's scalers: libswscale scales here"), ("cscale", "the GPU renderer's scalers: libswscale scales here"),
        ("dscale", "the GPU renderer's scalers: libswscale scales here"), ("deband", "the GPU renderer's debanding"),
        ("dither-depth", "the GPU renderer's dithering"), ("icc-profile-auto", "display colour profiles"),
        ("osd-level", "mpv's OSD: the transport bar and the message line are the terminal's"),
        ("osd-bar", "mpv's OSD: the transport bar and the message line are the terminal's"),
        ("osd-font-size", "mpv's OSD: the transport bar and the message line are the terminal's"),
        ("osd-on-seek", "mpv's OSD: the transport bar and the message line are the terminal's"),
        ("fs", "a window: the picture is the terminal's"), ("fullscreen", "a window: the picture is the terminal's"),
        ("geometry", "a window: the picture is the terminal's"), ("autofit", "a window: the picture is the terminal's"),
        ("ontop", "a window: the picture is the terminal's"), ("border", "a window: the picture is the terminal's"),
        ("force-window", "a window: the picture is the terminal's"), ("cursor-autohide", "a window's mouse pointer"),
    ]
    private static let ignoredNames = Set(ignored.map(\.name))

    /// mpv's video outputs that draw into a window or onto a GPU: `--vo` naming only these
    /// (`gpu`, `gpu,x11,`) is `--vo=auto`, the terminal's best.
    static let windowOutputs: Set<String> = ["gpu", "gpu-next", "opengl", "libmpv", "xv", "x11", "vaapi", "vdpau", "wlshm",
                                             "dmabuf-wayland", "drm", "sdl", "direct3d", "mediacodec_embed", "rpi"]

    /// Whether `key` (a config key or an option's name, `no-` forms included) is one of
    /// ``ignored``; options of our own with the name are never ignored.
    static func isIgnored(_ key: String, options: [String: ConfigArguments.OptionShape]) -> Bool {
        guard options[key] == nil else { return false }
        return ignoredNames.contains(key) || (key.hasPrefix("no-") && ignoredNames.contains(String(key.dropFirst(3))))
    }

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
        if key == "vo", let value {
            let outputs = value.split(separator: ",").map(String.init)
            if !outputs.isEmpty, outputs.allSatisfy(windowOutputs.contains) { return (key, "auto") }
        }
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
            if isIgnored(key, options: options) { continue }
            let (name, given) = rename(key, value, options: options)
            guard let shape = options[name] else {
                out.append(name == key && given == value ? word : form(name, given))
                continue
            }
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
