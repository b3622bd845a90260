/// String edits the program needs that Foundation's NSString bridging gave (the product links
/// FoundationEssentials only), under names of their own so that code importing Foundation too
/// sees no ambiguity.
extension String {
    /// The text followed by spaces up to `width` characters (a longer text is kept whole): printf's `%-Ns`.
    public func leftAligned(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (what `trimmingCharacters(in: .whitespaces)` did:
    /// Unicode's space separators and the tab, not line ends).
    public func trimmingWhitespace() -> String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// Without white space or line ends at either end.
    public func trimmingWhitespaceAndNewlines() -> String { trimming { $0.isWhitespace } }

    /// Without white space or line ends at the end (what the regex `\s+$` removed).
    public func trimmingTrailingWhitespace() -> String {
        guard let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[...last])
    }

    /// Without the characters `edge` holds for at either end.
    public func trimming(while edge: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !edge($0) }), let last = lastIndex(where: { !edge($0) }) else { return "" }
        return String(self[first...last])
    }

    /// Every occurrence of `target` replaced by `replacement`, matched in UTF-8 bytes as
    /// NSString matched code units (`"\n"` is found inside a `"\r\n"`, which Swift counts as one
    /// character). An empty `target` changes nothing.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let text = Array(utf8), pattern = Array(target.utf8)
        guard !pattern.isEmpty, text.count >= pattern.count else { return String(self) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            if i + pattern.count <= text.count, text[i] == pattern[0], text[i..<(i + pattern.count)].elementsEqual(pattern) {
                out += replacement.utf8
                i += pattern.count
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Cut or filled with spaces to `length` characters (NSString's `padding(toLength:withPad:" ",startingAt:0)`).
    public func paddedOrCut(to length: Int) -> String {
        count >= length ? String(prefix(max(0, length))) : self + String(repeating: " ", count: length - count)
    }
}
