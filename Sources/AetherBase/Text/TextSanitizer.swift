/// Makes text that came from a media file or a file name (titles, tags, chapter names, subtitle
/// lines, sidecar names) safe to put on a terminal.
///
/// Removes escape sequences whole (CSI, OSC, DCS/APC/PM/SOS strings, two-byte ESC sequences) and
/// every remaining C0/C1 control character and DEL. Also removes what would make the text look
/// other than it is:
/// - bidirectional controls (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069), which reorder it;
/// - zero-width and invisible format characters (U+200B–U+200D, U+2060–U+2064, U+206A–U+206F,
///   U+FEFF, U+180E), which hide characters between others;
/// - tag characters (U+E0000–U+E007F), invisible ASCII look-alikes that can smuggle text;
/// - interlinear annotation controls (U+FFF9–U+FFFB).
/// Tabs become spaces; U+2028/U+2029 (line and paragraph separators) become a newline when
/// newlines are kept, else a space. Invalid UTF-8 becomes U+FFFD. Newlines are kept only when
/// asked for.
public enum TextSanitizer {
    public static func clean(_ text: String, keepNewlines: Bool = false) -> String {
        // Printable ASCII holds nothing to take out (the usual name, path or title): as it is.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return scalars.next()
        }
        while let s = next() {
            switch s.value {
            case 0x1B:  // ESC
                guard let introducer = next() else { break }
                switch introducer.value {
                case 0x5B: skipCSI(&scalars)                                        // ESC [
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: skipString(&scalars)             // ESC ] P X ^ _
                case 0x20...0x2F:                                                   // ESC with intermediates
                    while let c = scalars.next(), (0x20...0x2F).contains(c.value) {}
                default: break                                                      // two-byte ESC x
                }
            case 0x9B: skipCSI(&scalars)                                            // C1 CSI
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F: skipString(&scalars)                 // C1 OSC DCS SOS PM APC
            case 0x0A where keepNewlines: out.append(s)
            case 0x09: out.append(" ")
            case 0x2028, 0x2029: out.append(keepNewlines ? "\n" : " ")               // line/paragraph separators
            case 0x00...0x1F, 0x7F...0x9F: continue
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: continue  // bidi controls
            case 0x200B...0x200D, 0x2060...0x2064, 0x206A...0x206F, 0xFEFF, 0x180E: continue  // zero-width, invisible
            case 0xE0000...0xE007F: continue                                        // tag characters
            case 0xFFF9...0xFFFB: continue                                          // interlinear annotation
            default: out.append(s)
            }
        }
        return String(out)
    }

    /// Skips a CSI sequence's parameters and intermediates up to and including its final byte.
    private static func skipCSI(_ it: inout String.UnicodeScalarView.Iterator) {
        while let c = it.next() {
            if (0x40...0x7E).contains(c.value) { return }
            if !(0x20...0x3F).contains(c.value) { return }  // malformed: stop at anything unexpected
        }
    }

    /// Skips a control string up to BEL, ST (ESC \) or C1 ST.
    private static func skipString(_ it: inout String.UnicodeScalarView.Iterator) {
        while let c = it.next() {
            switch c.value {
            case 0x07, 0x9C: return
            case 0x1B:
                _ = it.next()
                return
            default: continue
            }
        }
    }

    /// `text` cleaned, or nil when there is none or nothing is left of it (a title, a tag, a
    /// name from outside that may be missing or empty).
    public static func cleanOrNil(_ text: String?) -> String? {
        guard let text else { return nil }
        let clean = clean(text)
        return clean.isEmpty ? nil : clean
    }

    /// Decodes bytes as UTF-8 (invalid sequences become U+FFFD) and cleans the result.
    public static func clean(bytes: some Sequence<UInt8>, keepNewlines: Bool = false) -> String {
        clean(String(decoding: Array(bytes), as: UTF8.self), keepNewlines: keepNewlines)
    }
}
