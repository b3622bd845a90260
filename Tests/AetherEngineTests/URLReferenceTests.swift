import Testing
import AetherMedia

/// Unit tier: a document's references as URLs (``URLReference``), as browsers (WHATWG URL) read them.
@Suite struct URLReferenceTests {
    @Test func referencesResolveAgainstAURLOrAPath() {
        let base = "http://h.example/dir/index.m3u8"
        let cases: [(String, String)] = [
            ("seg.ts", "http://h.example/dir/seg.ts"),
            ("../up.ts", "http://h.example/up.ts"),
            ("/abs.ts", "http://h.example/abs.ts"),
            ("https://o.example/x.ts", "https://o.example/x.ts"),
            ("a b.ts", "http://h.example/dir/a%20b.ts"),
            // A colon in the first segment with no valid scheme before it: a path, not `http:/h.example/…`.
            ("seg_12:30.ts", "http://h.example/dir/seg_12:30.ts"),
            ("1:2.ts", "http://h.example/dir/1:2.ts"),
            ("se*-x:1,", "http://h.example/dir/se*-x:1,"),
            (#"op xmlns="urn:x""#, "http://h.example/dir/op%20xmlns=%22urn:x%22"),
        ]
        for (reference, url) in cases { #expect(URLReference.resolve(reference, against: base) == url, "\(reference)") }
        #expect(URLReference.resolve("seg.ts", against: "/media/list.m3u") == "/media/seg.ts")
        #expect(URLReference.resolve("a:b.mkv", against: "/media/list.m3u") == "/media/a:b.mkv")
    }
}
