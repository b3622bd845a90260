import AetherLoopback
import Foundation

/// `aether-bench network --parts firstsound`: seconds from exec to the first sound heard, for an
/// internet radio station (Debian's `icecast2` on loopback, ``IcecastStation``'s MP3 mount: 64 kb/s,
/// a 16,000-byte burst), a live HLS stream (``LiveStream``) and a progressive MP4 over the
/// loopback server, for aether-tui, the commit before (`--baseline-player`) and mpv, in turn in
/// one loop. Each run plays into a PulseAudio null sink of its own (``SinkRecorder``, `.own`),
/// through ALSA's pulse plugin for every player (mpv with `--ao=alsa`), for one second
/// (`--length=1`); the first recorded sample above -34 dBFS after the launch is the first sound.
/// The recording's own latency (10 ms asked of parec) is in every player's figure alike.
extension NetworkBenchmark {
    func firstSound(_ loopback: LoopbackHTTP) throws {
        print("\n== exec to the first sound heard, s (median of \(repeats); p95) ==")
        let runtime = "/tmp/aether-test-xdg"
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        guard Process.run(["/usr/bin/env", "bash", LoopbackHTTP.scripts.appendingPathComponent("pulse-null-sink.sh").path, runtime],
                          timeout: 60, capture: false).status == 0 else {
            print("skipped: no PulseAudio null sink (Tests/Scripts/pulse-null-sink.sh failed)")
            return
        }
        var sources: [(name: String, url: String)] = [("progressive.mp4", "http://127.0.0.1:\(loopback.port)/progressive.mp4")]
        var station: IcecastStation?
        if IcecastStation.isInstalled {
            let made = try IcecastStation()
            try made.startSource("/radio.mp3")
            station = made
            sources.insert(("station (MP3, 64 kb/s)", made.url("/radio.mp3")), at: 0)
        } else {
            print("no station: icecast2 is not installed")
        }
        defer { station?.stop() }
        let live = try LiveStream(seconds: 600)
        defer { live.stop() }
        if live.waitForSegments(4) { sources.insert(("live HLS (2 s segments)", live.url), at: sources.count - 1) }

        var players: [(name: String, argv: (String) -> [String])] = [
            ("aether-tui", { [player, $0, "--vo=null", "--length=1"] })]
        if let baselinePlayer { players.append(("the commit before", { [baselinePlayer, $0, "--vo=null", "--length=1"] })) }
        if let mpv = Spawn.which("mpv") {
            players.append(("mpv", { [mpv, "--no-config", "--vo=null", "--ao=alsa", "--length=1", $0] }))
        }
        print("source".padding(toLength: 26, withPad: " ", startingAt: 0)
              + players.map { $0.name.padding(toLength: 22, withPad: " ", startingAt: 0) }.joined())
        for source in sources {
            var times = Array(repeating: [Double](), count: players.count)
            for _ in 0..<repeats {
                for (k, p) in players.enumerated() {
                    if let t = try heard(p.argv(source.url)) { times[k].append(t) }
                }
            }
            print(source.name.padding(toLength: 26, withPad: " ", startingAt: 0) + times.map {
                ($0.isEmpty ? "-" : "\(Stats.fmt(Stats.median($0))) (p95 \(Stats.fmt(Stats.percentile($0, 95))))"
                    + ($0.count < repeats ? " \(repeats - $0.count)✗" : "")).padding(toLength: 22, withPad: " ", startingAt: 0)
            }.joined())
        }
    }

    /// Seconds from launching `argv` to the first sample its sink played above the threshold;
    /// nil when it failed or played nothing.
    private func heard(_ argv: [String]) throws -> Double? {
        let heard = try SinkRecorder.hear(argv, timeout: 30)
        return heard.run.status == 0 ? heard.first : nil
    }
}
