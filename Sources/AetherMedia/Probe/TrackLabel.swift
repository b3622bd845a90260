/// How a track is named in a menu, the stats box and the IPC's track lists: the one format for
/// audio and subtitles (issue 62, item 18): `eng · "Title" · aac · 5.1 · default`, an external
/// file's name first (`movie.en.srt · eng · subrip`). Parts from the file are cleaned by the caller
/// that shows them (``TextSanitizer``).
public enum TrackLabel {
    public static func make(file: String? = nil, language: String?, title: String?, codec: String, detail: String? = nil,
                            isDefault: Bool, isForced: Bool) -> String {
        var parts: [String] = []
        if let file { parts.append(String(file.split(separator: "/").last ?? Substring(file))) }
        if let language { parts.append(language) }
        if let title { parts.append("\"\(title)\"") }
        parts.append(codec)
        if let detail { parts.append(detail) }
        if isDefault { parts.append("default") }
        if isForced { parts.append("forced") }
        return parts.joined(separator: " · ")
    }
}

extension AudioStreamInfo {
    /// The track as menus show it (``TrackLabel``): its language (`und` when it names none), its
    /// title, codec and channel layout (`Atmos` after it), its flags.
    public var label: String {
        TrackLabel.make(file: externalFile, language: tags.language ?? "und", title: tags.title, codec: codec,
                        detail: layoutShort + (isAtmos ? " Atmos" : ""), isDefault: tags.isDefault, isForced: tags.isForced)
    }
}
