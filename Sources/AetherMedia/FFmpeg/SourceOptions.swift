import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What every source is opened with: validated HTTP headers and an explicit protocol whitelist,
/// whatever libavformat's defaults are in the installed version.
public enum SourceOptions {
    /// The descriptor `-` reads the media from (standard input unless the host moved it, e.g. a
    /// TUI that needs standard input for the terminal).
    public static let standardInput = Atomic<Int32>(STDIN_FILENO)

    /// The URL libavformat opens for a source: `-` is standard input (mpv's convention).
    public static func resolve(_ url: String) -> String {
        url == "-" ? "pipe:\(standardInput.load(ordering: .relaxed))" : url
    }

    /// False for sources that can be read once only (`-`, `pipe:`, `fd:`): no second reader
    /// (frame extractor, subtitle look-behind) may open them, as it would take playback's bytes.
    public static func isReopenable(_ url: String) -> Bool {
        !(url == "-" || url.hasPrefix("pipe:") || url.hasPrefix("fd:"))
    }

    /// Protocols libavformat may open itself for a source (and its nested opens). Not `http`,
    /// `https` or `httpproxy`: every HTTP(S) byte comes through the transport (libcurl, issue
    /// 59), a network source's nested opens through its session's `io_open`. `tcp` and `tls`
    /// stay for RTSP, RTMP and FTP, which libcurl does not stream, and for a `tcp://` or
    /// `tls://` source itself.
    public static let protocolWhitelist =
        "file,pipe,tcp,tls,crypto,data,hls,udp,rtp,rtsp,srtp,rtmp,rtmps,rtmpt,rtmpts,srt,ftp,subfile"

    /// A header name or value that would let a caller inject more headers or a request line.
    public struct InvalidHeader: Error, CustomStringConvertible {
        public let description: String
    }

    /// libavformat options for a source: the protocol whitelist, the concat demuxer's safe mode
    /// (no absolute or `..` paths from a playlist), and `headers` when any are given.
    /// Header names must be HTTP tokens; names and values must not hold CR, LF or NUL.
    public static func make(headers: [String: String]) throws(InvalidHeader) -> [String: String] {
        var network = NetworkSettings()
        network.headers = headers
        return try make(network: network)
    }

    /// As ``make(headers:)``, plus the user agent and referrer of `network` (for every open of
    /// the source: playback, sidecars, the frame extractor).
    public static func make(network: NetworkSettings) throws(InvalidHeader) -> [String: String] {
        let headers = network.headers
        var options = ["protocol_whitelist": protocolWhitelist, "safe": "1"]
        if let agent = network.userAgent {
            try validate(name: "User-Agent", value: agent)
            options["user_agent"] = agent
        }
        if let referrer = network.referrer {
            try validate(name: "Referer", value: referrer)
            options["referer"] = referrer
        }
        var lines = ""
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            try validate(name: name, value: value)
            lines += "\(name): \(value)\r\n"
        }
        // Bodies as they are: a playlist compressed a thousandfold is no playlist (libavformat
        // would inflate it; its readers count the inflated bytes against their budgets).
        if !headers.keys.contains(where: { $0.lowercased() == "accept-encoding" }) { lines += "Accept-Encoding: identity\r\n" }
        options["headers"] = lines
        // libavformat's own TLS (under RTMPS) checks certificates as ours does.
        options["tls_verify"] = network.tls.verifyPeer ? "1" : "0"
        if let ca = network.tls.caFile { options["ca_file"] = ca }
        return options
    }

    /// Throws when `name` is not an HTTP token or either part holds a control character.
    public static func validate(name: String, value: String) throws(InvalidHeader) {
        let tokenExtras: Set<Unicode.Scalar> = ["!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~"]
        let nameOK = !name.isEmpty && name.unicodeScalars.allSatisfy {
            $0.isASCII && (($0.properties.isAlphabetic) || ("0"..."9").contains($0) || tokenExtras.contains($0))
        }
        guard nameOK else {
            throw InvalidHeader(description: "invalid HTTP header name '\(TextSanitizer.clean(name))'")
        }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
            throw InvalidHeader(description: "invalid HTTP header '\(TextSanitizer.clean(name))': the value holds a line break or control character")
        }
    }

    /// Splits mpv's `--http-header-fields` list: `Field: value, Other: value`. A comma only
    /// separates fields when what follows it starts a new `Name:`; otherwise it belongs to the
    /// value (`Cookie: a=1, b=2` is one field).
    public static func splitFields(_ list: String) -> [(name: String, value: String)] {
        var fields: [String] = []
        for piece in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if let last = fields.last, !startsField(piece) {
                fields[fields.count - 1] = last + "," + piece
            } else {
                fields.append(piece)
            }
        }
        return fields.compactMap { field in
            guard let colon = field.firstIndex(of: ":") else { return nil }
            let name = field[..<colon].trimmingWhitespace()
            let value = field[field.index(after: colon)...].trimmingWhitespace()
            return name.isEmpty ? nil : (name, value)
        }
    }

    private static func startsField(_ piece: String) -> Bool {
        guard let colon = piece.firstIndex(of: ":") else { return false }
        let name = piece[..<colon].trimmingWhitespace()
        return (try? validate(name: name, value: "")) != nil
    }
}

