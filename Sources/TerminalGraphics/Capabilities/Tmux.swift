import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// tmux's `DCS tmux;` passthrough: a sequence tmux hands to the terminal outside it unchanged.
///
/// tmux draws a pane's text itself, so graphics (sixel without tmux's own sixel support, kitty's
/// APC images) reach the real terminal only wrapped: `ESC P tmux; <sequence, every ESC doubled>
/// ESC \`. tmux forwards them only with `allow-passthrough on` (3.3 and later), and writes them
/// at once, wherever the outer terminal's cursor happens to be — before the text of the pane it
/// has not drawn yet. A picture is therefore placed from inside the wrap: save the outer cursor,
/// move it to the pane's origin plus the picture's cell, draw, restore (``wrapPlaced(_:column:row:into:)``).
public struct TmuxPassthrough: Sendable, Equatable {
    /// The pane's top-left cell on the outer terminal (0-based).
    public var paneTop: Int
    public var paneLeft: Int

    public init(paneTop: Int = 0, paneLeft: Int = 0) {
        self.paneTop = max(0, paneTop)
        self.paneLeft = max(0, paneLeft)
    }

    /// `ESC P tmux;`
    public static let opening: [UInt8] = [0x1B, UInt8(ascii: "P")] + Array("tmux;".utf8)
    /// ST, `ESC \`.
    public static let closing: [UInt8] = [0x1B, UInt8(ascii: "\\")]

    /// `sequence` wrapped for tmux: every ESC doubled, inside `ESC P tmux; … ESC \`. Pure.
    public static func wrap(_ sequence: [UInt8]) -> [UInt8] {
        var out = opening
        out.reserveCapacity(opening.count + sequence.count + sequence.count / 8 + closing.count)
        for b in sequence {
            out.append(b)
            if b == 0x1B { out.append(0x1B) }
        }
        return out + closing
    }

    /// Appends `sequence` wrapped for tmux (see ``wrap(_:)``).
    public static func wrap(_ sequence: UnsafeRawBufferPointer, into output: ByteBuffer) {
        output.append(opening)
        appendDoubled(sequence, into: output)
        output.append(closing)
    }

    /// Appends `sequence` wrapped for tmux so that the outer terminal draws it at the pane's
    /// cell (`column`, `row`): DECSC, CUP to the outer cell, the sequence, DECRC — all inside
    /// one wrap, so nothing tmux writes can come between the move and the picture.
    public func wrapPlaced(_ sequence: UnsafeRawBufferPointer, column: Int, row: Int, into output: ByteBuffer) {
        output.append(placedOpening(column: column, row: row))
        Self.appendDoubled(sequence, into: output)
        output.append(Self.placedClosing)
    }

    /// The start of ``wrapPlaced(_:column:row:into:)``: `ESC P tmux;` then, ESCs doubled,
    /// DECSC and CUP to the pane's cell (`column`, `row`) on the outer terminal.
    public func placedOpening(column: Int, row: Int) -> [UInt8] {
        var inner = Escape.saveCursor
        inner += Escape.cursorPosition(column: paneLeft + max(0, column), row: paneTop + max(0, row))
        return Self.wrap(inner).dropLast(Self.closing.count)
    }

    /// The end of ``wrapPlaced(_:column:row:into:)``: DECRC (ESC doubled), then ST.
    public static let placedClosing: [UInt8] = [0x1B, 0x1B, UInt8(ascii: "8")] + closing

    /// Copies `bytes` with every ESC doubled.
    static func appendDoubled(_ bytes: UnsafeRawBufferPointer, into output: ByteBuffer) {
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x1B {
            output.append(UnsafeRawBufferPointer(rebasing: bytes[start...i]))
            output.append(0x1B)
            start = i + 1
        }
        output.append(UnsafeRawBufferPointer(rebasing: bytes[start...]))
    }
}

/// What tmux says about the pane we run in: whether it passes graphics through, and where the
/// pane sits on the outer terminal.
public struct TmuxPane: Sendable, Equatable {
    /// `allow-passthrough` is `on` or `all` for this pane (or tmux is older than 3.3, which
    /// always passed `DCS tmux;` through), and a client is attached (a detached session has no
    /// terminal to pass anything to, nor one to answer).
    public var passthrough: Bool
    /// The pane's top-left cell on the outer terminal: `pane_top` plus the status lines above
    /// the window when `status-position` is `top`, and `pane_left`.
    public var top: Int
    public var left: Int
    /// `#{version}`, e.g. `3.3a`.
    public var version: String?
    /// tmux's terminal (the client) takes 24-bit colour: `RGB` in `#{client_termfeatures}`
    /// (tmux 3.2 and later; tmux turns 24-bit colours into 256 for a client without it).
    public var rgb: Bool
    /// tmux's terminal shows sixel images: `sixel` in `#{client_termfeatures}` (tmux 3.4 and
    /// later set it from the terminal's DA1). A tmux built with sixel stores a pane's sixel
    /// images and draws them only to such a terminal; anywhere else it draws `+` cells (seen
    /// with tmux 3.5a in kitty 0.41.1). Nil: tmux did not list its terminal's features.
    public var clientSixel: Bool?

    public init(passthrough: Bool, top: Int = 0, left: Int = 0, version: String? = nil, rgb: Bool = false,
                clientSixel: Bool? = nil) {
        self.passthrough = passthrough
        self.top = max(0, top)
        self.left = max(0, left)
        self.version = version
        self.rgb = rgb
        self.clientSixel = clientSixel
    }

    /// The format ``TmuxQuery`` asks tmux to expand (`display-message -p`): options are looked
    /// up pane → window → global, so `#{allow-passthrough}` is the pane's effective value
    /// (`show -gv` and `show -pv` in one answer).
    public static let format = "#{allow-passthrough}|#{pane_top}|#{pane_left}|#{status}|#{status-position}|#{version}|#{session_attached}|#{client_termfeatures}"

    /// Parses tmux's expansion of ``format``; nil when it is not one (no tmux, no server).
    public init?(reply: String) {
        let line = reply.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first.map(String.init) ?? ""
        let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        // The eighth field (client features) is absent in the answers of older formats.
        guard fields.count == 7 || fields.count == 8, let paneTop = Int(fields[1]), let paneLeft = Int(fields[2]) else { return nil }
        let limit = ReplyLimits.screenCells
        guard limit.contains(paneTop + 1), limit.contains(paneLeft + 1) else { return nil }
        let value = fields[0].lowercased()
        var passthrough = ["1", "on", "all"].contains(value)
        // Before 3.3 there was no such option (it expands to nothing) and passthrough always worked.
        if value.isEmpty, let older = Self.isOlderThan33(fields[5]) { passthrough = older }
        if let clients = Int(fields[6]), clients == 0 { passthrough = false }
        let statusLines: Int
        switch fields[3].lowercased() {
        case "on": statusLines = 1
        case let s: statusLines = min(5, max(0, Int(s) ?? 0))
        }
        let top = paneTop + (fields[4].lowercased() == "top" ? statusLines : 0)
        let features = fields.count == 8 ? fields[7].prefix(512).split(separator: ",") : nil
        self.init(passthrough: passthrough, top: top, left: paneLeft, version: fields[5].isEmpty ? nil : fields[5],
                  rgb: features?.contains("RGB") ?? false, clientSixel: features.map { $0.contains("sixel") })
    }

    /// `3.2a` → true, `3.3a` / `next-3.4` → false; nil when it is not a version.
    static func isOlderThan33(_ version: String) -> Bool? {
        let digits = version.drop { !$0.isNumber }
        let parts = digits.split(separator: ".", maxSplits: 1)
        guard let major = parts.first.flatMap({ Int($0) }) else { return nil }
        let minor = parts.count > 1 ? Int(parts[1].prefix { $0.isNumber }) ?? 0 : 0
        return major < 3 || (major == 3 && minor < 3)
    }
}

/// Asks the tmux server we run under about our pane: `tmux display-message -p -t $TMUX_PANE
/// <TmuxPane.format>` as a child process (posix_spawn, output through a pipe, a deadline, killed
/// and reaped if late). A few milliseconds; started before the probe's queries go out and
/// collected after the sentinel, so it costs the probe next to nothing.
public final class TmuxQuery {
    private let child: PendingChild?
    private var result: TmuxPane?
    private var finished = false

    /// Starts the query; a failure to start (no `tmux` on `PATH`) is a query that answers nil.
    /// - Parameters:
    ///   - executable: the tmux binary (looked up on `PATH`).
    public init(environment: TerminalEnvironment, executable: String = "tmux") {
        var arguments = [executable, "display-message", "-p"]
        if let pane = environment.tmuxPane { arguments += ["-t", pane] }
        arguments.append(TmuxPane.format)
        child = PendingChild(arguments, reaperName: "aether.tmux-reaper")
    }

    deinit { _ = finish(timeout: .zero) }

    /// Waits at most `timeout` for tmux's answer; a child still running then is killed. Nil when
    /// tmux did not answer, failed, or said something else. Later calls return the same result.
    public func finish(timeout: Duration) -> TmuxPane? {
        guard !finished else { return result }
        finished = true
        guard let output = child?.collect(timeout: timeout, limit: 4096) else { return nil }
        result = TmuxPane(reply: String(decoding: output, as: UTF8.self))
        return result
    }
}
