import AetherBase
import FoundationEssentials

/// The one way a reference found in a document (a playlist's entry, a manifest's `BaseURL`, a
/// key's or a sheet's URI, a redirect's `Location`) becomes a URL: RFC 3986 resolution against
/// the document's own URL.
public enum URLReference {
    /// `reference` against `base`: an absolute URL as it is; a relative one joined to a URL
    /// base (one URL cannot read stays as it is, no URL: refused where a URL must be); against a
    /// local path, joined as a path.
    public static func resolve(_ reference: String, against base: String) -> String {
        if NetworkSettings.scheme(of: reference) != nil { return reference }
        if NetworkSettings.scheme(of: base) != nil {
            // A first segment with a colon before which stands no valid scheme (`seg_12:30.ts`) is
            // a path, as browsers read it; RFC 3986 (4.2) writes it `./seg_12:30.ts`, which URL
            // reads (it reads none without). Never joined as a file path: that made `http:/h/…`.
            let firstSegment = reference.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let relative = firstSegment.contains(":") ? "./" + reference : reference
            return URL(string: relative, relativeTo: URL(string: base))?.absoluteString ?? reference
        }
        if reference.hasPrefix("/") { return reference }
        return Paths.join(Paths.deletingLastComponent(base), reference)
    }
}
