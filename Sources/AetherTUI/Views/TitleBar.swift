import AetherBase
import AetherScreen

/// The title line (row 0): the media's title on the left, the current chapter's name on the
/// right. Both come from the media, so both are cleaned before they are measured.
struct TitleBar: Equatable {
    var title: String
    /// The chapter playing (nil: none, or no chapters).
    var chapter: String?

    func render(into surface: inout some TextSurface) {
        let columns = surface.columns
        surface.fill(row: 0, column: 0, width: columns, role: .title)
        surface.put(" " + TextSanitizer.clean(title), row: 0, column: 0, role: .title, width: columns - 1)
        if let chapter {
            let text = TextSanitizer.clean(chapter) + " "
            surface.put(text, row: 0, column: max(0, columns - DisplayWidth.of(text)), role: .title)
        }
    }
}
