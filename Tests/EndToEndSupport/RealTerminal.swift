import AetherTestSupport
import Foundation

/// A terminal emulator from Debian the tests drive under Xvfb: xterm (`-ti vt340`, sixel with
/// 256 registers), mlterm, kitty (software GL) and foot (Wayland only: inside weston's X11
/// backend, in the same X server, so xdotool's keys and xwd's screenshots work for it too).
public enum RealTerminal: String, CaseIterable, Sendable {
    case xterm, mlterm, kitty, foot

    /// What every session needs: the X server, screenshots, keys, the conversion to RGB.
    public static let commonTools = ["/usr/bin/Xvfb", "/usr/bin/xwd", "/usr/bin/ffmpeg", "/usr/bin/xdotool"]

    public var tools: [String] {
        Self.commonTools + ["/usr/bin/\(rawValue)"] + (self == .foot ? ["/usr/bin/weston"] : [])
    }

    public var isPresent: Bool { tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }

    /// The X window it draws in (foot's is weston's).
    public var windowClass: String { self == .foot ? "weston" : rawValue }

    /// argv running `command` through `sh -c` in a window of `columns` × `rows` cells at the
    /// screen's top-left corner (foot fills weston's kiosk output instead), with no user
    /// configuration. `resources`: xterm resources set after the defaults (which they override),
    /// e.g. `XTerm*maxGraphicSize: 640x480`.
    public func arguments(command: String, columns: Int, rows: Int, display: String, resources: [String] = []) -> [String] {
        switch self {
        case .xterm:
            ["/usr/bin/xterm", "-display", display, "-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 256",
             "-xrm", "XTerm*maxGraphicSize: 2000x2000"] + resources.flatMap { ["-xrm", $0] }
                + ["-geometry", "\(columns)x\(rows)+0+0", "-bw", "0", "-b", "0", "-e", "sh", "-c", command]
        case .mlterm:
            ["/usr/bin/mlterm", "--display=\(display)", "--geometry=\(columns)x\(rows)+0+0", "--sb=false",
             "-e", "sh", "-c", command]
        case .kitty:
            ["/usr/bin/kitty", "--config", "NONE", "-o", "initial_window_width=\(columns)c",
             "-o", "initial_window_height=\(rows)c", "-o", "remember_window_size=no", "-o", "enable_audio_bell=no",
             "sh", "-c", command]
        case .foot:
            ["/usr/bin/foot", "sh", "-c", command]
        }
    }
}

/// Xvfb (1024×768×24) on a display number no server holds, from `numbers`; `stop()` ends it.
public final class XServer {
    public let display: String
    private let process = Process()

    public init(numbers: ClosedRange<Int>) throws {
        // A display number no server holds (one of our own choosing can still be held by a
        // server that is going away, which made a later test talk to the wrong one).
        var number = numbers.lowerBound
        for _ in 0..<50 {
            number = Int.random(in: numbers)
            // Neither a lock nor a socket: a socket left by a killed server would make the wait
            // below end at once and clients connect before the new server listens.
            if !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock"),
               !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { break }
        }
        display = ":\(number)"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A loaded two-core machine can take seconds to bring the server up.
        _ = waitUntil(15, interval: 0.05) { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") }
        _ = waitUntilAcceptingClients()
    }

    /// Waits up to `timeout` s until a client can open the display (its socket can exist a
    /// moment before the server answers: a terminal started then exits at once).
    @discardableResult
    public func waitUntilAcceptingClients(_ timeout: Double = 10) -> Bool {
        waitUntil(timeout, interval: 0.05) {
            process.isRunning && Process.run(["/usr/bin/xdotool", "getdisplaygeometry"], environment: ["DISPLAY": display],
                                             timeout: 2, capture: false).status == 0
        }
    }

    public var isRunning: Bool { process.isRunning }

    public func stop() {
        // SIGKILL (the test runner's ignored SIGTERM is inherited), then what Xvfb would have
        // removed on a clean exit.
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        let number = display.dropFirst()
        try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
        try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
    }
}

/// weston with its X11 backend in an X server: a Wayland compositor for foot whose output is
/// an X window (kiosk shell: the client fills it; pixman: no GL). Its runtime directory is
/// private and removed by `stop()`.
public final class Weston {
    public let runtimeDirectory: String
    public let socket = "wayland-aether"
    private let process = Process()

    public init(display: String) throws {
        runtimeDirectory = NSTemporaryDirectory() + "aether-weston-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/weston")
        process.arguments = ["--no-config", "--backend=x11-backend.so", "--use-pixman", "--socket=\(socket)",
                             "--width=1024", "--height=768", "--shell=kiosk-shell.so", "--idle-time=0"]
        process.environment = ["DISPLAY": display, "XDG_RUNTIME_DIR": runtimeDirectory, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        _ = waitUntil(10, interval: 0.05) { FileManager.default.fileExists(atPath: runtimeDirectory + "/" + socket) }
    }

    public var isRunning: Bool { process.isRunning }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }
}

/// One real terminal running `command` under its own Xvfb (and weston for foot), keys typed
/// with xdotool, the screen read back with xwd. Owns every process it starts; `stop()` (and
/// deinit) ends them.
public final class TerminalSession {
    public let kind: RealTerminal
    public let display: String
    private let server: XServer
    private let weston: Weston?
    private var terminal = Process()
    private var arguments: [String] = []
    private var environment: [String: String] = [:]
    private var restarts = 0
    /// The terminal window's size in pixels (no border, no scrollbar) and its cell grid.
    public private(set) var windowSize = (width: 0, height: 0)
    public let cells: (columns: Int, rows: Int)

    /// Whether the tools for xterm are installed (the other kinds: ``RealTerminal/isPresent``).
    public static var toolsPresent: Bool { RealTerminal.xterm.isPresent }

    /// - Parameter displays: the X display numbers to pick from (tests that run beside others
    ///   use ranges of their own).
    public init(_ kind: RealTerminal = .xterm, command: String, columns: Int = 100, rows: Int = 30,
         displays: ClosedRange<Int> = 100...999, resources: [String] = []) throws {
        self.kind = kind
        cells = (columns, rows)
        server = try XServer(numbers: displays)
        display = server.display
        // A UTF-8 locale, as every desktop session has: xterm and mlterm read their encoding from
        // it (in the C locale xterm showed `▀` as `â`, and ncurses escaped the box lines).
        var env = ["DISPLAY": display, "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"]
        switch kind {
        case .foot:
            let weston = try Weston(display: display)
            self.weston = weston
            env["XDG_RUNTIME_DIR"] = weston.runtimeDirectory
            env["WAYLAND_DISPLAY"] = weston.socket
        case .kitty:
            weston = nil
            env["LIBGL_ALWAYS_SOFTWARE"] = "1"
        default:
            weston = nil
        }
        environment = env
        arguments = kind.arguments(command: command + "; sleep 60", columns: columns, rows: rows, display: display,
                                   resources: resources)
        try launch()
        var attempt = 0
        var relaunchError: Error?
        // The window's geometry every 0.1 s, 80 looks at most.
        _ = waitUntil(.infinity, interval: 0.1) {
            defer { attempt += 1 }
            guard attempt < 80, relaunchError == nil else { return true }
            // A terminal that could not open the display yet (the server still starting) exits
            // at once: start it again, twice at most (a clean-clone CI run once saw "xterm gone").
            if !terminal.isRunning, windowSize.width == 0, attempt % 20 == 19, restarts < 2 {
                restarts += 1
                server.waitUntilAcceptingClients()
                terminal = Process()
                do { try launch() } catch { relaunchError = error; return true }
            }
            let r = Process.run(["/usr/bin/xdotool", "search", "--class", kind.windowClass, "getwindowgeometry", "--shell"],
                                environment: ["DISPLAY": display], timeout: 2)
            let values = Dictionary(r.stdout.split(separator: "\n").compactMap { line -> (String, Int)? in
                let kv = line.split(separator: "=")
                guard kv.count == 2, let v = Int(kv[1]) else { return nil }
                return (String(kv[0]), v)
            }, uniquingKeysWith: { a, _ in a })
            // Not the 1×1 window a terminal has before it is mapped.
            if let w = values["WIDTH"], let h = values["HEIGHT"], w > 50, h > 50 { windowSize = (w, h); return true }
            return false
        }
        if let relaunchError { throw relaunchError }
    }

    private func launch() throws {
        terminal.executableURL = URL(fileURLWithPath: arguments[0])
        terminal.arguments = Array(arguments.dropFirst())
        terminal.environment = environment
        terminal.standardOutput = FileHandle.nullDevice
        terminal.standardError = FileHandle.nullDevice
        try terminal.run()
    }

    public var cellHeight: Int { windowSize.height / cells.rows }

    /// For failure messages: whether the X server and the terminal are still up.
    public var state: String {
        "display \(display), Xvfb \(server.isRunning ? "up" : "gone")\(weston.map { ", weston \($0.isRunning ? "up" : "gone")" } ?? ""), "
            + "\(kind.rawValue) \(terminal.isRunning ? "up" : "gone"), window \(windowSize)"
    }

    /// The player paused on the solid red fixture in sixel.
    public static func playingSolidRed() throws -> TerminalSession {
        try TerminalSession(command: "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=sixel --ao=null --pause")
    }

    /// Waits up to 10 s for at least `minimum` red pixels on screen, alike in two reads in a row;
    /// their bounding box and count.
    /// xterm paints a sixel image band by band, so one screenshot can hold part of a picture
    /// (CI once read 150 of its 323 rows): the picture is what two reads in a row agree on.
    public func waitForRedPicture(minimum: Int = 20_000) -> (x0: Int, y0: Int, x1: Int, y1: Int, count: Int) {
        var picture = (x0: 0, y0: 0, x1: -1, y1: -1, count: 0)
        var previous = picture
        _ = waitUntil(10, interval: 0.25) {
            guard let shot = screenshot() else { return false }
            previous = picture
            picture = shot.redBox()
            return picture.count >= minimum && picture == previous
        }
        return picture
    }

    /// Waits up to `timeout` s until two screenshots `gap` s apart are alike (the picture drawn
    /// and no longer changing); that screenshot, or nil.
    public func waitForStillScreenshot(_ timeout: Double = 10, gap: Double = 0.25) -> Screenshot? {
        var previous: Screenshot?
        var still: Screenshot?
        _ = waitUntil(timeout, interval: gap) {
            guard let shot = screenshot() else { return false }
            defer { previous = shot }
            guard previous?.rgb == shot.rgb else { return false }
            still = shot
            return true
        }
        return still
    }

    /// The red area read back every 0.25 s for up to 6 s until `done` says so (the last one read,
    /// or `start` when no screenshot could be taken).
    public func waitForRedBox(from start: (x0: Int, y0: Int, x1: Int, y1: Int, count: Int),
                       until done: ((x0: Int, y0: Int, x1: Int, y1: Int, count: Int)) -> Bool) -> (x0: Int, y0: Int, x1: Int, y1: Int, count: Int) {
        var box = start
        _ = waitUntil(6, interval: 0.25) {
            guard let shot = screenshot() else { return false }
            box = shot.redBox()
            return done(box)
        }
        return box
    }

    /// Types `keys` (xdotool key names) into the window under the pointer.
    public func press(_ keys: String...) {
        _ = Process.run(["/usr/bin/xdotool", "mousemove", "20", "20"], environment: ["DISPLAY": display], timeout: 5)
        _ = Process.run(["/usr/bin/xdotool", "key"] + keys, environment: ["DISPLAY": display], timeout: 5)
    }

    /// The whole screen as RGB24 rows, or nil when xwd or the conversion failed.
    public func screenshot() -> Screenshot? {
        let base = NSTemporaryDirectory() + "aether-xterm-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            try? FileManager.default.removeItem(atPath: base + ".xwd")
            try? FileManager.default.removeItem(atPath: base + ".rgb")
        }
        let xwd = Process.run(["/usr/bin/xwd", "-root", "-display", display, "-silent", "-out", base + ".xwd"], timeout: 10)
        guard xwd.status == 0 else { return nil }
        let conv = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-i", base + ".xwd", "-f", "rawvideo",
                                "-pix_fmt", "rgb24", base + ".rgb"], timeout: 20)
        guard conv.status == 0, let data = FileManager.default.contents(atPath: base + ".rgb"),
              data.count == 1024 * 768 * 3 else { return nil }
        return Screenshot(width: 1024, height: 768, rgb: [UInt8](data))
    }

    public func stop() {
        if terminal.isRunning { kill(terminal.processIdentifier, SIGKILL); terminal.waitUntilExit() }
        weston?.stop()
        server.stop()
    }

    deinit { stop() }
}

/// The xterm session the sixel tests were written against.
public typealias XtermSession = TerminalSession

public struct Screenshot {
    public let width: Int, height: Int
    public let rgb: [UInt8]

    public func isRed(_ x: Int, _ y: Int) -> Bool {
        let i = (y * width + x) * 3
        return rgb[i] > 200 && rgb[i + 1] < 60 && rgb[i + 2] < 60
    }

    /// Red pixels left of column `x` (where only a scrub preview can be, left of the picture).
    public func redPixels(leftOf x: Int) -> Int {
        var n = 0
        for y in 0..<height { for px in 0..<max(0, x) where isRed(px, y) { n += 1 } }
        return n
    }

    /// The bounding box of the red pixels and how many there are.
    public func redBox() -> (x0: Int, y0: Int, x1: Int, y1: Int, count: Int) {
        var box = (x0: width, y0: height, x1: -1, y1: -1, count: 0)
        for y in 0..<height {
            for x in 0..<width where isRed(x, y) {
                box.x0 = min(box.x0, x); box.x1 = max(box.x1, x)
                box.y0 = min(box.y0, y); box.y1 = max(box.y1, y)
                box.count += 1
            }
        }
        return box
    }
}
