#if canImport(Glibc)
import Glibc
#endif

/// Asks the terminal what it can do, within a time budget, ending with a sentinel every
/// terminal answers (habit 14; timg's `CSI >q` + `CSI 5n`).
///
/// One write carries every query, DSR last:
/// DA1 (`CSI c`), XTSMGRAPHICS colour registers and sixel geometry (`CSI ?1;1;0S`,
/// `CSI ?2;1;0S`), cell size (`CSI 16 t`), text area (`CSI 14 t`), screen cells (`CSI 18 t`),
/// synchronized output (DECRQM `CSI ?2026$p`), then DSR (`CSI 5n`). Terminals answer in order,
/// so the DSR reply (`CSI 0n`) means every answer the terminal will give has arrived; a silent
/// terminal costs at most the budget. Bytes that are not replies come back as ``Report/strayInput``.
public enum CapabilityProbe {
    /// Long enough for a terminal over ssh, short enough not to be noticed at startup.
    public static let defaultBudget: Duration = .milliseconds(250)

    /// The queries, in one write.
    public static let query: [UInt8] = Array(
        ("\u{1B}[c" + "\u{1B}[?1;1;0S" + "\u{1B}[?2;1;0S" + "\u{1B}[16t" + "\u{1B}[14t" + "\u{1B}[18t"
            + "\u{1B}[?2026$p" + "\u{1B}[5n").utf8)

    /// What the probe found.
    public struct Report: Sendable, Equatable {
        public var capabilities: TerminalCapabilities
        /// Input that was not a reply (keys typed during the probe), for the host's input queue.
        public var strayInput: [UInt8]
        /// The transport failed (the capabilities then come from the environment only).
        public var error: SystemCallError?
    }

    /// Probes through `transport`.
    ///
    /// - Parameters:
    ///   - windowSize: TIOCGWINSZ of the terminal if known (cells and pixels; pixels 0 = unknown).
    ///   - budget: the longest the probe waits for the sentinel.
    public static func probe<T: ProbeTransport>(
        transport: inout T, environment: TerminalEnvironment,
        windowSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? = nil,
        budget: Duration = defaultBudget
    ) -> Report {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + budget
        var caps = TerminalCapabilities()
        caps.term = environment.term
        caps.termProgram = environment.termProgram
        caps.inTmux = environment.inTmux
        var parser = ReplyParser()
        var stray: [UInt8] = []
        var replies: [TerminalReply] = []
        var failure: SystemCallError?
        do throws(SystemCallError) {
            try transport.send(query)
            while !caps.answered {
                let now = clock.now
                guard now < deadline else { break }
                let bytes = try transport.receive(timeout: deadline - now)
                guard !bytes.isEmpty else { continue }
                let parsed = parser.feed(bytes)
                stray += parsed.stray
                for reply in parsed.replies {
                    if case .statusReport = reply { caps.answered = true }
                    replies.append(reply)
                }
            }
        } catch {
            failure = error
        }
        apply(replies, environment: environment, windowSize: windowSize, to: &caps)
        let elapsed = clock.now - start
        caps.probeMilliseconds = Double(elapsed.components.seconds) * 1000
            + Double(elapsed.components.attoseconds) / 1e15
        return Report(capabilities: caps, strayInput: stray, error: failure)
    }

    /// Probes the terminal on `input`/`output` (switching `input` to raw mode for the duration)
    /// with the process environment as hints.
    public static func probe(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                             environment: TerminalEnvironment, budget: Duration = defaultBudget) -> Report {
        var transport = FileDescriptorTransport(input: input, output: output)
        defer { transport.restore() }
        let size = FileDescriptorTransport.windowSize(output) ?? FileDescriptorTransport.windowSize(input)
        return probe(transport: &transport, environment: environment, windowSize: size, budget: budget)
    }

    /// Folds replies, the window size and environment hints into capabilities.
    ///
    /// Every size is checked against ``ReplyLimits``; one out of range is dropped, as if the
    /// terminal had not sent it, so the next source (or the fallback) is used.
    static func apply(_ replies: [TerminalReply], environment: TerminalEnvironment,
                      windowSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)?,
                      to caps: inout TerminalCapabilities) {
        var cellReply: CellSize?
        var textArea: PixelSize?
        let cells = ReplyLimits.screenCells, pixels = ReplyLimits.windowPixels
        let ws = windowSize.flatMap { cells.contains($0.columns) && cells.contains($0.rows) ? $0 : nil }
        if let ws {
            caps.screenColumns = ws.columns
            caps.screenRows = ws.rows
        }
        for reply in replies {
            switch reply {
            case .deviceAttributes(let attributes):
                caps.deviceAttributes = Array(attributes.prefix(64))
                caps.sixel = attributes.dropFirst().contains(4)
            case .graphicsAttribute(item: 1, status: 0, let values):
                if let n = values.first, ReplyLimits.colorRegisters.contains(n) { caps.sixelColorRegisters = n }
            case .graphicsAttribute(item: 2, status: 0, let values):
                if values.count >= 2, ReplyLimits.sixelGeometry.contains(values[0]), ReplyLimits.sixelGeometry.contains(values[1]) {
                    caps.sixelMaxGeometry = PixelSize(width: values[0], height: values[1])
                }
            case .windowReport(kind: 6, let h, let w):
                cellReply = CellSize(width: w, height: h)
            case .windowReport(kind: 4, let h, let w):
                if pixels.contains(w), pixels.contains(h) { textArea = PixelSize(width: w, height: h) }
            case .windowReport(kind: 8, let rows, let columns):
                if caps.screenRows == nil, cells.contains(rows), cells.contains(columns) {
                    caps.screenRows = rows
                    caps.screenColumns = columns
                }
            case .modeReport(mode: 2026, let value):
                caps.synchronizedOutput = (1...3).contains(value)
            default:
                break
            }
        }
        // Cell size: TIOCGWINSZ pixels, else CSI 16 t, else CSI 14 t ÷ cells.
        if let ws, pixels.contains(ws.pixelWidth), pixels.contains(ws.pixelHeight),
           case let size = CellSize(width: ws.pixelWidth / ws.columns, height: ws.pixelHeight / ws.rows), size.isValid {
            caps.cellSize = size
            caps.cellSizeSource = .ioctl
        } else if let cellReply, cellReply.isValid {
            caps.cellSize = cellReply
            caps.cellSizeSource = .terminal
        } else if let textArea, let c = caps.screenColumns, let r = caps.screenRows,
                  case let size = CellSize(width: textArea.width / c, height: textArea.height / r), size.isValid {
            caps.cellSize = size
            caps.cellSizeSource = .terminal
        }
        if environment.suggestsTruecolor {
            caps.truecolor = true
            caps.truecolorSource = .environment
        }
    }
}
