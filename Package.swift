// swift-tools-version: 6.1
import PackageDescription

/// What every end-to-end tier's tests build against: the binary they run and the helpers.
/// (Real-time tests drive the player in-process too, reaching internals through `@testable import`.)
let endToEnd: [Target.Dependency] = ["aether-tui", "AetherControl", "AetherEngine", "AetherTUI", "AetherScreen", "AetherInput", "AetherTestSupport", "EndToEndSupport",
                                     "AetherMedia", "AetherStreaming", "AetherSubtitles", "AetherStills", "AetherPlayback", "TerminalGraphics",
                                     "TerminalPictures", "OutputChoice"]

let package = Package(
    name: "aether-tui",
    products: [
        .executable(name: "aether-tui", targets: ["aether-tui"]),
        .executable(name: "aether-bench", targets: ["aether-bench"]),
        .library(name: "AetherEngine", targets: ["AetherEngine"]),
        .library(name: "TerminalGraphics", targets: ["TerminalGraphics"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries. Debian installs the FFmpeg headers on the default multiarch include path;
        // CFFmpeg is a C target (its log shim needs a va_list callback); the shim headers make
        // function-like macros callable. libavfilter is loaded on first use, not linked
        // (filter_loader.c: it pulls in ~12 MB of libraries most playback never needs).
        .target(name: "CFFmpeg", linkerSettings: [
            .linkedLibrary("avformat"), .linkedLibrary("avcodec"),
            .linkedLibrary("avutil"), .linkedLibrary("swscale"), .linkedLibrary("swresample"), .linkedLibrary("dl"),
            // xml_guard.c's xmlReadMemory must be in the dynamic symbol table, so that
            // libavformat's calls into libxml2 land on it.
            .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=xmlReadMemory"]),
        ]),
        // libcurl (Debian's OpenSSL flavour, as the curl command's): every remote byte.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("crypto")]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CNcurses", pkgConfig: "ncursesw", providers: [.apt(["libncurses-dev"])]),
        // zlib for kitty's compressed frames (`o=z`) over a remote link.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libass (ASS/SSA subtitle rendering); its shim formats libass's va_list messages for the log.
        .systemLibrary(name: "CLibass", pkgConfig: "libass", providers: [.apt(["libass-dev"])]),
        // Saved termios + a crash-signal handler that restores the terminal and writes the crash
        // report (async-signal-safe C).
        .target(name: "CTerminal"),
        // sd-bus (libsystemd) for the MPRIS server: its object vtables are C macros, so they
        // live in this shim, which forwards calls and property access to Swift.
        .target(name: "CSystemd", linkerSettings: [.linkedLibrary("systemd")]),

        // The values every layer shares (`PixelSize`, `PixelRect`, `Guarded`, the bounded
        // `JSONValue`, `MonotonicClock`); depends only on CSystem (below), so the engine and the
        // terminal graphics need not depend on each other.
        // pipe2 (close-on-exec pipes), which Swift's Glibc module does not declare.
        .target(name: "CSystem"),
        .target(name: "AetherBase", dependencies: ["CSystem"]),
        // The engine, one target per capability; dependencies point down only (DocC: "Targets").
        // Media core: FFmpeg wrappers, decoders, scaler, still values, clock source, log, probe,
        // the one ISO BMFF box reader (`ISOBMFFBoxes`), MD5.
        // Disc images and folders (DVD-Video: ISO 9660, IFO): readers of our own, the title as one stream.
        .target(name: "AetherDisc", dependencies: ["AetherBase", "CFFmpeg"]),
        // The transport: libcurl sessions (connection reuse, TLS policy) and transfers read as
        // they are pulled, the answer's head within its budgets.
        .target(name: "AetherTransport", dependencies: ["AetherBase", "CCurl"]),
        .target(name: "AetherMedia", dependencies: ["AetherBase", "AetherDisc", "AetherTransport", "CFFmpeg", "CZlib"]),
        // HTTP session (the one bounded whole-URL read), HLS/DASH readers and translation,
        // bit-rate switching, live/timeshift.
        .target(name: "AetherStreaming", dependencies: ["AetherBase", "AetherMedia", "AetherTransport", "CFFmpeg"]),
        // The cue store, ASS/WebVTT/PGS, the libass overlay (sidecar URLs through streaming).
        .target(name: "AetherSubtitles", dependencies: ["AetherBase", "AetherMedia", "AetherStreaming", "CFFmpeg", "CLibass"]),
        // The inspection area (one `InspectionError`): ISO BMFF / EBML / TS structure,
        // the frame stepper and the packet/frame inspectors.
        .target(name: "AetherStructure", dependencies: ["AetherBase", "AetherDisc", "AetherMedia", "AetherStreaming", "CFFmpeg"]),
        // `aether-tui download`: plans, fetches, decrypts and remuxes HLS/DASH sources.
        .target(name: "AetherDownload", dependencies: ["AetherBase", "AetherMedia", "AetherStreaming", "AetherSubtitles", "CFFmpeg"]),
        // The frame extractor (stills, scrub thumbnails) and sprite-sheet thumbnails.
        .target(name: "AetherStills", dependencies: ["AetherBase", "AetherMedia", "AetherStreaming", "CFFmpeg"]),
        // The player: session, demux loop, video/audio pipelines, presenter, master clock, telemetry.
        .target(name: "AetherPlayback", dependencies: [
            "AetherBase", "AetherMedia", "AetherTransport", "AetherStreaming", "AetherSubtitles", "CFFmpeg", "CALSA",
        ]),
        // The umbrella: re-exports every engine target (and AetherBase) for `import AetherEngine`.
        .target(name: "AetherEngine", dependencies: [
            "AetherBase", "AetherDisc", "AetherMedia", "AetherTransport", "AetherStreaming", "AetherSubtitles", "AetherStructure", "AetherDownload",
            "AetherStills", "AetherPlayback",
        ]),
        // Depends on nothing of the engine: its tests build without FFmpeg and ALSA.
        .target(name: "TerminalGraphics", dependencies: ["AetherBase", "CZlib"]),
        // `--vo=auto` by measurement: the throughput trial, the choice (most source detail shown at the
        // source frame rate, with hysteresis) and terminals.json (what each terminal measured).
        .target(name: "OutputChoice", dependencies: ["AetherBase", "TerminalGraphics"]),
        // What a terminal shows, decoded from the bytes it received (cells, kitty's placeholder
        // cells) and judged against the source (PSNR): for the tests and `aether-bench`, in no product.
        .target(name: "TerminalPictures", dependencies: ["TerminalGraphics"]),
        // The commands and their values in mpv's syntax (`seek 10`, `cycle sub`): keys, input.conf,
        // IPC and MPRIS speak them; AetherBase only, so reading a key needs no FFmpeg.
        .target(name: "AetherCommands", dependencies: ["AetherBase"]),
        // The command layer: playlists, resume, config and key bindings, and the remote front
        // ends (JSON IPC, MPRIS) that keys, the socket and media keys share.
        .target(name: "AetherControl", dependencies: [
            "AetherBase", "AetherCommands", "AetherDisc", "AetherMedia", "AetherPlayback", "AetherStreaming", "AetherSubtitles", "CSystemd",
        ], plugins: ["GitCommitPlugin"]),
        // The colour themes: the `.theme` parser, the loader and its search path, colours and
        // styles (FoundationEssentials and AetherBase's file reader only).
        .target(name: "AetherThemes", dependencies: ["AetherBase"]),
        // Terminal input: key names and the default key map, input.conf bindings, mouse reports,
        // and the filter that keeps the terminal's replies from being read as keys.
        .target(name: "AetherInput", dependencies: ["AetherBase", "AetherCommands", "TerminalGraphics"]),
        // The screen under the views: ncurses owned by one Terminal, styles and display widths,
        // the theme's palette, the compositor, the text-only terminfo.
        .target(name: "AetherScreen", dependencies: ["AetherBase", "AetherInput", "AetherThemes", "TerminalGraphics", "CNcurses", "CTerminal", "CSystem"]),
        // The ncurses host: views, layout, menus, overlays, the inspector's screens.
        .target(name: "AetherTUI", dependencies: [
            "AetherBase", "AetherCommands", "AetherControl", "AetherInput", "AetherMedia", "AetherPlayback", "AetherScreen", "AetherStills",
            "AetherStreaming", "AetherStructure", "AetherSubtitles", "AetherThemes", "OutputChoice", "TerminalGraphics", "CTerminal",
        ]),
        .executableTarget(name: "aether-tui", dependencies: [
            "AetherEngine", "AetherBase", "AetherStreaming", "TerminalGraphics", "OutputChoice", "AetherTUI", "AetherThemes", "AetherInput",
            "AetherCommands", "AetherControl", "CTerminal", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The build's git commit and the version's snapshot suffix (`PlayerIdentity`), written at
        // build time into AetherControl.
        .plugin(name: "GitCommitPlugin", capability: .buildTool(), path: "Sources/GitCommitPlugin"),

        // Benchmarks; one subcommand per subsystem (`aether-bench graphics …`, `aether-bench engine …`).
        .executableTarget(name: "aether-bench", dependencies: [
            "TerminalGraphics", "TerminalPictures", "OutputChoice", "AetherEngine", "AetherBase",
            // The network part serves the fixtures through the suite's server and fault proxy.
            "AetherLoopback",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // libFuzzer targets, one per parser of outside input (Tests/Scripts/fuzz.sh names them); a file replayer when built normally.
        // Tests/Scripts/fuzz.sh builds it with -sanitize=fuzzer,address -DFUZZING.
        // Its harnesses (Checks/: DecodeCheck, DownloadCheck, WVTTCheck, …) reach the engine's `package` API.
        .executableTarget(name: "aether-fuzz", dependencies: [
            "AetherEngine", "AetherBase", "AetherMedia", "AetherTransport", "AetherStreaming", "AetherSubtitles", "AetherDownload",
            "AetherTUI", "AetherScreen", "AetherThemes", "AetherInput", "AetherControl", "TerminalGraphics", "OutputChoice", "CFFmpeg", "CLibass", "AetherDisc",
            "AetherStructure",
        ]),

        // The loopback HTTP server and fault proxy (Tests/Scripts/range_http.py, fault_proxy.py)
        // that the suite and `aether-bench network` share; in no shipped product.
        .target(name: "AetherLoopback", dependencies: ["AetherBase"]),
        // Fixtures, the PulseAudio null sink, and running the built binary, for every test target
        // (it re-exports AetherLoopback).
        .target(name: "AetherTestSupport", dependencies: ["AetherLoopback"], path: "Tests/AetherTestSupport"),

        // Players run as the end-to-end tiers run them (headless, beside IPC, on the stand-in kitty
        // pty), live streams, and real terminals under Xvfb.
        .target(name: "EndToEndSupport", dependencies: ["AetherEngine", "AetherTestSupport"], path: "Tests/EndToEndSupport"),
        // Generated pictures for the TerminalGraphics tests and the real-terminal tests.
        .target(name: "TerminalGraphicsTestSupport", dependencies: ["TerminalGraphics"], path: "Tests/TerminalGraphicsTestSupport"),

        // The tiers (Tests/Scripts/test.sh): a tier is a set of test targets.
        // unit: pure tests, run in parallel (`test.sh --fast`).
        // The engine's unit tests reach internals through `@testable import` of the target that holds them.
        .testTarget(name: "AetherEngineTests", dependencies: [
            "AetherEngine", "AetherMedia", "AetherStreaming", "AetherSubtitles", "AetherStructure", "AetherDownload",
            "AetherStills", "AetherPlayback", "AetherTestSupport", "CZlib", "AetherDisc", "AetherTransport",
        ]),
        .testTarget(name: "AetherControlTests", dependencies: ["AetherCommands", "AetherControl", "AetherEngine", "AetherTestSupport"]),
        .testTarget(name: "TerminalGraphicsTests", dependencies: ["TerminalGraphics", "TerminalPictures", "OutputChoice", "AetherBase", "TerminalGraphicsTestSupport", "CZlib"]),
        // Crashes a child process on a pty with CTerminal's handlers armed (fork + C only).
        .target(name: "CTerminalTestSupport", dependencies: ["CTerminal"], path: "Tests/CTerminalTestSupport"),

        .testTarget(name: "AetherTUITests", dependencies: ["AetherTUI", "AetherCommands", "AetherScreen", "AetherThemes", "AetherInput", "AetherControl", "AetherSubtitles", "AetherTestSupport", "CTerminalTestSupport"]),
        // cli: the binary headless, in parallel.
        .testTarget(name: "EndToEndTests", dependencies: endToEnd),
        // realtime: playback paced by the ALSA clock, the TUI in tmux; serial.
        .testTarget(name: "RealTimeTests", dependencies: endToEnd),
        // network: loopback servers, fault proxies, live streams; serial.
        .testTarget(name: "NetworkTests", dependencies: endToEnd),
        // terminals: real terminals under Xvfb; serial.
        .testTarget(name: "TerminalTests", dependencies: endToEnd + ["TerminalGraphicsTestSupport"]),
        // Not in test.sh: the long runs of Tests/Scripts/soak.sh.
        .testTarget(name: "SoakTests", dependencies: endToEnd),
    ]
)
