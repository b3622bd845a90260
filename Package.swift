// swift-tools-version: 6.1
import PackageDescription

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
        // the module maps link the libraries and the shim headers make function-like macros callable.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev",
                                         "libswscale-dev", "libswresample-dev", "libavutil-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CNcurses", pkgConfig: "ncursesw", providers: [.apt(["libncursesw5-dev"])]),

        .target(name: "AetherEngine", dependencies: ["CFFmpeg", "CALSA"]),
        .target(name: "TerminalGraphics"),
        .target(name: "AetherTUI", dependencies: ["AetherEngine", "TerminalGraphics", "CNcurses"]),
        .executableTarget(name: "aether-tui", dependencies: [
            "AetherEngine", "TerminalGraphics", "AetherTUI",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Benchmarks; one subcommand per subsystem (`aether-bench graphics …`).
        .executableTarget(name: "aether-bench", dependencies: [
            "TerminalGraphics",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "AetherEngineTests", dependencies: ["AetherEngine"]),
        .testTarget(name: "TerminalGraphicsTests", dependencies: ["TerminalGraphics"]),
        .testTarget(name: "AetherTUITests", dependencies: ["AetherTUI"]),
        .testTarget(name: "EndToEndTests", dependencies: ["AetherEngine"]),
    ]
)
