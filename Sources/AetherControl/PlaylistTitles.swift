import AetherBase
import AetherCommands

/// The one home of what each playlist item is called: the item playing by its media title
/// (``PlayerController/mediaTitle``: its tags', a station's song, the list's), the others by
/// the title they had when they last played (their tags were read then), else the playlist
/// file's title, else their file name. The playlist menu (F8) and the `playlist` property read it.
/// Cheap to copy (the arrays are shared until changed), so a snapshot holds one.
public struct PlaylistTitles: Sendable, Equatable {
    public var items: [PlaylistItem] = []
    public var position: Int?
    /// Titles of items that played, by source (cleaned).
    public var seen: [String: String] = [:]
    /// The item playing's media title (cleaned).
    public var current: String?

    public init() {}

    /// The title of item `index`, nil when nothing names it (then its file name is shown).
    public func title(at index: Int) -> String? {
        guard items.indices.contains(index) else { return nil }
        if index == position, let current { return current }
        if let known = seen[items[index].source] { return known }
        return TextSanitizer.cleanOrNil(items[index].title)
    }

    /// The name shown for item `index`: its title, else its file name (cleaned).
    public func label(at index: Int) -> String {
        guard items.indices.contains(index) else { return "" }
        return title(at: index) ?? TextSanitizer.clean(items[index].displayName)
    }

    /// mpv's `playlist` property: per item its `filename`, its `title` when one is known, and
    /// `current`/`playing` on the item playing.
    public var property: PropertyValue {
        .list(items.indices.map { i in
            var entry: [String: PropertyValue] = ["filename": .string(TextSanitizer.clean(items[i].source)), "id": .number(Double(i + 1))]
            if let title = title(at: i) { entry["title"] = .string(title) }
            if i == position { entry["current"] = .bool(true); entry["playing"] = .bool(true) }
            return .map(entry)
        })
    }
}
