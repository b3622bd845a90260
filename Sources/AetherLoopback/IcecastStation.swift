import Foundation

/// Debian's `icecast2` on 127.0.0.1 (a port of its own, a configuration and logs in a
/// temporary directory; as `nobody` when the suite runs as root, which Icecast refuses), with
/// `ffmpeg` as its source client: an MP3 mount (`/radio.mp3`, titles set through Icecast's
/// admin metadata request) and an Ogg/Opus mount (`/radio.opus`, its title in the Opus
/// comments). ``stop()`` (or release) ends the server and every source.
public final class IcecastStation: @unchecked Sendable {  // used from one test at a time
    public private(set) var port = 0
    public let directory: String
    private var server: Process?
    private var sources: [String: Process] = [:]
    public static let name = "Aether Test Radio"
    public static let genre = "Test Tones"
    /// Icecast's default `icy-metaint`: a title block every this many bytes of the MP3 mount.
    public static let metaint = 16_000
    /// The MP3 mount's bit rate (bytes per second: 64 kb/s).
    public static let mp3BytesPerSecond = 8_000

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/icecast2") }

    public init() throws {
        guard Self.isInstalled else { throw Unavailable(description: "icecast2 is not installed (Tests/Scripts/install-deps.sh)") }
        // Under root Icecast runs as nobody, who must reach its files: /tmp itself, not the
        // suite's TMPDIR (test.sh's is private to root).
        directory = (getuid() == 0 ? "/tmp/" : NSTemporaryDirectory()) + "aether-icecast-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/log", withIntermediateDirectories: true)
        // Icecast runs as nobody under root: its log directory must be its to write.
        for path in [directory, directory + "/log"] { chmod(path, 0o777) }
        // A port nobody listens on now can be taken before Icecast binds it (suites run side by
        // side): a server that exits at once is started again on another.
        var lastError = ""
        for _ in 0..<3 {
            let port = try Self.freePort()
            let path = directory + "/icecast.xml"
            try Self.configuration(port: port, directory: directory).write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o644)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = (getuid() == 0 ? ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] : [])
                + ["icecast2", "-c", path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if waitUntil(15, interval: 0.05, { !process.isRunning || Self.get("http://127.0.0.1:\(port)/status-json.xsl") != nil }),
               process.isRunning {
                self.port = port
                server = process
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            lastError = (try? String(contentsOfFile: directory + "/log/error.log", encoding: .utf8))?.suffix(400).description ?? ""
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw Unavailable(description: "icecast2 did not start: \(lastError)")
    }

    static func configuration(port: Int, directory: String) -> String {
        """
        <icecast>
          <limits><clients>32</clients><sources>4</sources><queue-size>524288</queue-size><client-timeout>30</client-timeout>
            <header-timeout>15</header-timeout><source-timeout>10</source-timeout><burst-size>16000</burst-size></limits>
          <authentication><source-password>source-pw</source-password><admin-user>admin</admin-user><admin-password>admin-pw</admin-password></authentication>
          <hostname>127.0.0.1</hostname><location>loopback</location><admin>test@localhost</admin>
          <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
          <fileserve>1</fileserve>
          <paths><basedir>/usr/share/icecast2</basedir><logdir>\(directory)/log</logdir><webroot>/usr/share/icecast2/web</webroot>
            <adminroot>/usr/share/icecast2/admin</adminroot></paths>
          <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
        </icecast>
        """
    }

    deinit { stop() }

    public func url(_ mount: String) -> String { "http://127.0.0.1:\(port)\(mount)" }

    /// Starts ffmpeg sending a tone to `mount` (`.mp3`: MP3 at 64 kb/s; `.opus`: Ogg/Opus with
    /// `title` in its comments), and waits until Icecast lists the mount.
    public func startSource(_ mount: String, title: String? = nil, frequency: Int = 440) throws {
        let opus = mount.hasSuffix(".opus")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re",
                             "-f", "lavfi", "-i", "sine=f=\(frequency):r=48000"]
            + (opus ? ["-c:a", "libopus", "-b:a", "48k", "-content_type", "application/ogg", "-f", "ogg"]
                    : ["-c:a", "libmp3lame", "-b:a", "64k", "-content_type", "audio/mpeg", "-f", "mp3"])
            + (title.map { ["-metadata", "title=\($0)"] } ?? [])
            // What a source client says of its station: Icecast sends it as icy-name and icy-genre.
            + ["-ice_name", Self.name + (opus ? " (Opus)" : ""), "-ice_genre", Self.genre]
            + ["icecast://source:source-pw@127.0.0.1:\(port)\(mount)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        sources[mount] = process
        guard waitUntil(10, interval: 0.05, { isLive(mount) }) else {
            throw Unavailable(description: "the source for \(mount) never came up")
        }
    }

    /// Stops `mount`'s source client (Icecast then closes its listeners).
    public func stopSource(_ mount: String) {
        guard let process = sources.removeValue(forKey: mount) else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        _ = waitUntil(10, interval: 0.05) { !isLive(mount) }
    }

    /// Whether Icecast has a source on `mount` (its admin stats).
    public func isLive(_ mount: String) -> Bool {
        guard let page = Self.get("http://admin:admin-pw@127.0.0.1:\(port)/admin/stats") else { return false }
        return page.contains("<source mount=\"\(mount)\">")
    }

    /// Sets the title Icecast sends in band on `mount` (its admin metadata request); true when
    /// Icecast says it took it.
    @discardableResult
    public func setTitle(_ mount: String, _ title: String) -> Bool {
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "mount", value: mount), URLQueryItem(name: "mode", value: "updinfo"),
                            URLQueryItem(name: "song", value: title)]
        let url = "http://admin:admin-pw@127.0.0.1:\(port)/admin/metadata?" + (query.percentEncodedQuery ?? "")
        return Self.get(url)?.contains("Metadata update successful") == true
    }

    public func stop() {
        for mount in Array(sources.keys) { stopSource(mount) }
        if let server {
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
            self.server = nil
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// A body fetched with curl (nil: no answer in 5 s, or an HTTP error).
    static func get(_ url: String) -> String? {
        let r = Process.run(["/usr/bin/curl", "-sf", "--max-time", "5", url], timeout: 10)
        return r.status == 0 ? r.stdout : nil
    }

    /// A TCP port on 127.0.0.1 nobody listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Unavailable(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
