import AetherBase
import FoundationEssentials

/// The one way a reference found in a document (a playlist's entry, a manifest's `BaseURL`, a
/// key's or a sheet's URI, a redirect's `Location`) becomes a URL: RFC 3986 resolution against
/// the document's own URL.
public enum URLReference {
    /// `reference` against `base`: an absolute URL as it is; a relative one joined to a URL
    /// base; against a local path, joined as a path.
    public static func resolve(_ reference: String, against base: String) -> String {
        if NetworkSettings.scheme(of: reference) != nil { return reference }
        // A relative reference whose first segment has a colon is none (RFC 3986, 4.2: it reads
        // as a scheme, here not a valid one); FoundationEssentials' URL takes it anyway, so it
        // is joined as a path and refused later as "not a URL".
        let firstSegment = reference.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if NetworkSettings.scheme(of: base) != nil, !firstSegment.contains(":"),
           let url = URL(string: reference, relativeTo: URL(string: base)) {
            return url.absoluteString
        }
        if reference.hasPrefix("/") { return reference }
        return Paths.join(Paths.deletingLastComponent(base), reference)
    }
}
