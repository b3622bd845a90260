extension RemoteServices {
    /// The bus name the MPRIS server owns (nil: not running: no session bus, or `--no-mpris`).
    public var mprisBusName: String? { mpris?.busName }

    /// Starts the MPRIS server when `options.mpris`. No session bus is not worth a warning (the
    /// player simply has no media keys); a bus that refuses us is.
    func startMPRIS(_ options: Options) -> [String] {
        guard options.mpris, mpris == nil else { return [] }
        do {
            mpris = try MPRISServer.start(hub: hub, clock: clock)
            return []
        } catch {
            return ["MPRIS is off: \(error)"]
        }
    }

    func stopMPRIS() {
        mpris?.stop()
        mpris = nil
    }
}
