import AetherControl
import AetherBase
import TerminalGraphics

/// The terminal's title while playing (`--title`, as mpv sets it): the template expanded over
/// the player's properties, cleaned (no control or bidi character reaches the terminal; at most
/// ``maxCharacters``), sent only when it changes. It is expanded when the item changes and at
/// most once every ``interval`` seconds otherwise (a property's text for `${time-pos}`, say,
/// is not worth a snapshot a frame). The title before is pushed on the terminal's title stack
/// at start and popped by every way out (it is in the restore sequence).
struct TerminalTitle: Equatable {
    let template: String
    /// The title last sent (nil: none yet, or the terminal's was given back since).
    private(set) var shown: String?
    /// When it was last expanded, and for which item.
    private var expandedAt = -Double.infinity
    private var expandedFor: Int?

    static let maxCharacters = 256
    static let interval = 1.0

    init(template: String) { self.template = template }

    /// False: `--title=` (empty) leaves the terminal's title alone.
    var isEnabled: Bool { !template.isEmpty }

    /// The bytes that set the title from the properties `value` gives, or nil when it is what
    /// the terminal shows already or is not due: `item` (the playlist position) changed, or
    /// ``interval`` passed since `now` last expanded it. The first also pushes the title before.
    mutating func update(now: Double, item: Int?, value: (String) -> String?) -> [UInt8]? {
        guard isEnabled, shown == nil || item != expandedFor || now - expandedAt >= Self.interval else { return nil }
        expandedAt = now
        expandedFor = item
        let text = String(TextSanitizer.clean(PropertyExpansion.expand(template, value: value)).prefix(Self.maxCharacters))
        guard text != shown else { return nil }
        defer { shown = text }
        return (shown == nil ? Escape.pushTitle : []) + Escape.windowTitle(text)
    }

    /// The terminal's title was given back (a suspend's restore sequence): the next update
    /// pushes and sets it again.
    mutating func givenBack() { shown = nil }
}
