import AetherEngine
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// How every HTTP request of a command is made (`play` and `download`), named as mpv names them.
struct NetworkOptions: ParsableArguments {
    @Option(name: .customLong("http-header-fields"), help: ArgumentHelp("Extra HTTP headers for every request, comma-separated 'Field: value' pairs (a comma not followed by a new 'Field:' stays in the value).", valueName: "fields"))
    var httpHeaderFields: String?

    @Option(name: .customLong("user-agent"), help: ArgumentHelp("User-Agent of every HTTP request (default: libavformat's).", valueName: "string"))
    var userAgent: String?

    @Option(help: ArgumentHelp("Referer of every HTTP request.", valueName: "url"))
    var referrer: String?

    @Option(name: .customLong("network-timeout"), help: ArgumentHelp("Seconds a network read or connect may wait for data before the transfer is retried; a source with no byte for this long, over every reconnect, gives up (exit 5).", valueName: "seconds"))
    var networkTimeout: Double = 10

    @Option(name: .customLong("network-retries"), help: ArgumentHelp("Transient network failures (reset, timeout, 5xx, a body cut short) one transfer retries in a row, with exponential backoff, before it gives up.", valueName: "n"))
    var networkRetries: Int = 6

    @Option(name: .customLong("demuxer-max-bytes"), help: ArgumentHelp("The most bytes read and dropped to reach a position of a file whose server does not serve byte ranges (an MP4 with its index at the end, a seek), as 150MiB or 1GiB.", valueName: "size"))
    var demuxerMaxBytes = SizeArgument(bytes: 150 << 20)

    @OptionGroup var tls: TLSOptions

    func validate() throws(ValidationError) {
        guard networkTimeout.isFinite, networkTimeout > 0, networkTimeout <= 3600 else { throw ValidationError("--network-timeout must be more than 0 and at most 3600") }
        guard (0...100).contains(networkRetries) else { throw ValidationError("--network-retries must be between 0 and 100") }
    }

    /// Headers (checked for CR/LF and token names when a source is opened), user agent,
    /// referrer, deadline and retries into `settings`.
    func apply(to settings: inout NetworkSettings) {
        settings.userAgent = userAgent
        settings.referrer = referrer
        settings.readTimeout = networkTimeout
        settings.retries = networkRetries
        settings.forwardReadLimit = demuxerMaxBytes.bytes
        settings.tls = tls.policy
        for field in SourceOptions.splitFields(httpHeaderFields ?? "") { settings.headers[field.name] = field.value }
    }
}

/// How https servers are checked (`play`, `download`, `probe`), as mpv names it.
struct TLSOptions: ParsableArguments {
    @Option(name: .customLong("tls-verify"), help: ArgumentHelp("Check every https server's certificate against the system's authorities (or --tls-ca-file's) and its name; no plays a server whose certificate nobody trusted signed.", valueName: "yes|no"))
    var tlsVerify: YesNo = .yes

    @Option(name: .customLong("tls-ca-file"), help: ArgumentHelp("A PEM file of the certificate authorities to trust instead of the system's.", valueName: "file"), completion: .file())
    var tlsCAFile: String?

    func validate() throws(ValidationError) {
        if let file = tlsCAFile {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(file, R_OK) == 0 else {
                throw ValidationError("--tls-ca-file: '\(TextSanitizer.clean(file))' is not a file that can be read")
            }
        }
    }

    var policy: TransportSession.Policy { TransportSession.Policy(verifyPeer: tlsVerify.isOn, caFile: tlsCAFile) }
}

/// A size in bytes as mpv writes one on its command line (`150MiB`, `1G`, `512k`; ``ByteSize``).
struct SizeArgument: ExpressibleByArgument {
    let bytes: Int64

    init(bytes: Int64) { self.bytes = bytes }

    init?(argument: String) {
        guard let bytes = ByteSize.parse(argument) else { return nil }
        self.bytes = bytes
    }

    var defaultValueDescription: String {
        bytes > 0 && bytes % (1 << 30) == 0 ? "\(bytes >> 30)GiB" : bytes % (1 << 20) == 0 ? "\(bytes >> 20)MiB" : "\(bytes)"
    }
}
