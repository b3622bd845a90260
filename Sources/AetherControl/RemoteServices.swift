import AetherBase

/// The remote front ends a host runs beside its own input: the JSON IPC socket
/// (`--input-ipc-server`) and the MPRIS server on the session bus (media keys, playerctl).
/// Both talk to the player only through the ``RemoteHub``.
public final class RemoteServices {
    public struct Options: Sendable {
        /// `--input-ipc-server=PATH` (nil: no socket).
        public var ipcServerPath: String?
        /// Register on the D-Bus session bus when there is one (`--no-mpris` turns it off).
        public var mpris = true
        public init() {}
    }

    public let hub: RemoteHub
    private var ipcServer: IPCServer?
    /// What the IPC server's timers and `get_time_us`, and the MPRIS calls' deadlines, read:
    /// the host's clock.
    let clock: TimeSource
    public init(hub: RemoteHub, clock: TimeSource) {
        self.hub = hub
        self.clock = clock
    }

    /// The MPRIS server while it runs (RemoteServices+MPRIS.swift).
    var mpris: MPRISServer?
    /// MPRIS is on the session bus (there was a bus, and `--no-mpris` was not given).
    public var mprisIsRunning: Bool { mpris != nil }

    /// Starts what `options` asks for; a front end that cannot start says why in the returned
    /// warnings (one line each) and the player goes on without it.
    public func start(_ options: Options) -> [String] {
        var warnings: [String] = []
        warnings += startMPRIS(options)
        if let path = options.ipcServerPath, ipcServer == nil {
            do { ipcServer = try IPCServer(path: path, hub: hub, time: clock) } catch { warnings.append("--input-ipc-server: \(error)") }
        }
        return warnings
    }

    /// Stops every front end (sockets closed and removed, bus name released).
    public func stop() {
        stopMPRIS()
        ipcServer?.stop()
        ipcServer = nil
    }
}
