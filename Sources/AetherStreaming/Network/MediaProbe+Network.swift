import AetherMedia

extension MediaProbe {
    /// Opens `url` (a network one through the transport, with `network`'s settings) and probes it,
    /// within `timeout` seconds of `clock`.
    public static func probe(url: String, options: [String: String] = [:], network: NetworkSettings,
                             timeout: Double = 15, clock: TimeSource) throws(FFmpegError) -> MediaInfo {
        try probe(url: url, options: options, network: network, timeout: timeout, interrupt: InterruptToken(clock: clock))
    }

    /// The same on `interrupt` (its clock's `timeout`; cancelling it gives the probe up at once:
    /// the inspector closed while it read).
    public static func probe(url: String, options: [String: String] = [:], network: NetworkSettings,
                             timeout: Double = 15, interrupt: InterruptToken) throws(FFmpegError) -> MediaInfo {
        var opened = options
        for (k, v) in (try? SourceOptions.make(network: network)) ?? [:] where opened[k] == nil { opened[k] = v }
        let format = try FormatContext(url: url, options: opened, timeout: timeout, interrupt: interrupt, network: network)
        // The bitstream scan reads packets: it gets the same deadline as the open.
        format.interrupt.arm(seconds: timeout)
        defer { format.interrupt.arm(seconds: nil) }
        return try probe(format)
    }
}
