/// Matches language tags against a preference list (mpv's `--alang`/`--slang`): case-blind,
/// and the ISO 639-1 code, the 639-2/T code and the 639-2/B code of a language are one
/// language (`fr` = `fra` = `fre`), as are regional variants (`en-US` is `en`).
public enum LanguagePreference {
    /// The index of the first of `tags` in the most preferred language of `preferences`.
    public static func first(of preferences: [String], in tags: [String?]) -> Int? {
        let normalised = tags.map { $0.map(canonical) }
        for wanted in preferences.map(canonical) where !wanted.isEmpty {
            if let i = normalised.firstIndex(where: { $0 == wanted }) { return i }
        }
        return nil
    }

    /// One spelling per language: the 639-2/T code where we know the language, else the tag
    /// lowercased without its region.
    public static func canonical(_ tag: String) -> String {
        let base = tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        return aliases[base] ?? base
    }

    /// 639-1 and 639-2/B codes of the common languages → 639-2/T.
    static let aliases: [String: String] = {
        let table: [(String, String, String?)] = [  // (639-1, 639-2/T, 639-2/B)
            ("en", "eng", nil), ("fr", "fra", "fre"), ("de", "deu", "ger"), ("es", "spa", nil),
            ("it", "ita", nil), ("pt", "por", nil), ("nl", "nld", "dut"), ("ja", "jpn", nil),
            ("zh", "zho", "chi"), ("ko", "kor", nil), ("ru", "rus", nil), ("pl", "pol", nil),
            ("sv", "swe", nil), ("no", "nor", nil), ("da", "dan", nil), ("fi", "fin", nil),
            ("cs", "ces", "cze"), ("sk", "slk", "slo"), ("hu", "hun", nil), ("ro", "ron", "rum"),
            ("el", "ell", "gre"), ("tr", "tur", nil), ("ar", "ara", nil), ("he", "heb", nil),
            ("hi", "hin", nil), ("th", "tha", nil), ("vi", "vie", nil), ("id", "ind", nil),
            ("uk", "ukr", nil), ("bg", "bul", nil), ("hr", "hrv", nil), ("sr", "srp", nil),
            ("fa", "fas", "per"), ("is", "isl", "ice"), ("ca", "cat", nil), ("eu", "eus", "baq"),
            ("cy", "cym", "wel"), ("ga", "gle", nil), ("ms", "msa", "may"), ("ta", "tam", nil),
        ]
        var map: [String: String] = [:]
        for (one, t, b) in table {
            map[one] = t
            if let b { map[b] = t }
        }
        return map
    }()
}
