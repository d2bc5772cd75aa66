// swift-tools-version:6.0
// Boardwalk: a touchscreen game kiosk drawn straight into DRM/KMS.
// Module rules (who may import whom) are in docs/ARCHITECTURE.md.
import PackageDescription

func shim(_ name: String, _ pkg: String, _ apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkg, providers: [.apt(apt)])
}

/// A game's tests see its module, the toolkit it draws with and the shared test kit.
func gameTestDependencies(_ game: Target.Dependency) -> [Target.Dependency] {
    [game, "GameCore", "Platform", "Graphics", "Input", "Audio", "UI", "TestSupport"]
}

let package = Package(
    name: "Boardwalk",
    products: [
        .executable(name: "boardwalk", targets: ["boardwalk"]),
        .executable(name: "boardwalk-bench", targets: ["boardwalk-bench"]),
    ],
    targets: [
        // System-library shims: a modulemap and a header each, nothing else.
        shim("CDRM", "libdrm", ["libdrm-dev"]),
        shim("CEvdev", "libevdev", ["libevdev-dev"]),
        shim("CALSA", "alsa", ["libasound2-dev"]),
        shim("CPixman", "pixman-1", ["libpixman-1-dev"]),
        shim("CFreeType", "freetype2", ["libfreetype-dev"]),
        shim("CPNG", "libpng", ["libpng-dev"]),
        shim("CSndfile", "sndfile", ["libsndfile1-dev"]),
        // Linux headers missing from the Glibc module, one file per kernel interface (signalfd,
        // timerfd, epoll, ioctl, the VT, netlink, prctl, malloc statistics); glibc itself, nothing to link.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // alsa-lib's C-variadic error handler, which Swift cannot implement portably.
        .target(name: "CALSAQuiet", dependencies: ["CALSA"]),

        // System calls as thrown errors, files, clocks, logging: used by every layer.
        .target(name: "Platform", dependencies: ["CLinux"]),
        // Points, pixel rects, damage and the one definition of rotation (stdlib only):
        // what Display's copy-out and Input's touch mapping must agree on.
        .target(name: "ScreenGeometry"),
        .target(name: "Graphics", dependencies: ["ScreenGeometry", "Platform", "CPixman", "CFreeType", "CPNG"]),
        .target(name: "Input", dependencies: ["ScreenGeometry", "Platform", "CEvdev"]),
        .target(name: "Audio", dependencies: ["Platform", "CALSA", "CALSAQuiet", "CSndfile"]),
        // Copy-out's turned and converting loops: plain C that vectorizes (SSE2/AVX2, NEON).
        .target(name: "CopyKernels"),
        .target(name: "Display", dependencies: ["ScreenGeometry", "Platform", "Graphics", "CDRM", "CLinux", "CPixman", "CopyKernels"]),
        .target(name: "UI", dependencies: ["Platform", "Graphics", "Input", "Audio", "CopyKernels"]),

        // The one thing every game's rules share: a seeded random generator (stdlib only).
        .target(name: "GameCore"),
        // A game: its rules (*Model.swift, stdlib + GameCore only), its scene and views, and its
        // GameDescriptor. scripts/check-imports.py holds every target to what it declares here.
        .target(name: "BeatZombies", dependencies: ["GameCore", "Platform", "UI", "Graphics", "Input", "Audio"]),
        .target(name: "GuessPicture", dependencies: ["GameCore", "Platform", "UI", "Graphics", "Input", "Audio"]),
        .target(name: "Game2048", dependencies: ["GameCore", "UI", "Graphics", "Input", "Audio"]),
        .target(name: "MemoryMatch", dependencies: ["GameCore", "UI", "Graphics", "Input", "Audio"]),

        .target(name: "Arcade", dependencies: ["GameCore", "ScreenGeometry",
            "Platform", "Graphics", "Input", "Audio", "Display", "UI",
            "BeatZombies", "GuessPicture", "Game2048", "MemoryMatch",
        ]),
        .executableTarget(name: "boardwalk", dependencies: ["Arcade"]),
        .executableTarget(name: "boardwalk-bench", dependencies: ["Arcade", "Graphics", "UI", "Display", "Audio", "Input", "Platform", "CPixman"]),

        // What the tests share: reference images, the scene harness, paths. Tests only.
        .target(name: "TestSupport", dependencies: ["Platform", "Graphics", "Input", "Audio", "UI"],
                path: "Tests/TestSupport"),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "TestSupport"]),
        .testTarget(name: "GameCoreTests", dependencies: ["GameCore"]),
        .testTarget(name: "ScreenGeometryTests", dependencies: ["ScreenGeometry", "Display", "Input", "Graphics"]),
        .testTarget(name: "GraphicsTests", dependencies: ["Graphics", "Platform", "TestSupport", "CPixman"], exclude: ["References"]),
        .testTarget(name: "InputTests", dependencies: ["Input", "ScreenGeometry", "CEvdev", "Platform", "GameCore"], exclude: ["Fixtures"]),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "Platform"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "CopyKernels", "ScreenGeometry", "Graphics", "Platform"]),
        .testTarget(name: "UITests", dependencies: ["UI", "Graphics", "Input", "Audio", "TestSupport"], exclude: ["References"]),
        .testTarget(name: "BeatZombiesTests", dependencies: gameTestDependencies("BeatZombies"), exclude: ["References"]),
        .testTarget(name: "GuessPictureTests", dependencies: gameTestDependencies("GuessPicture"), exclude: ["References"]),
        .testTarget(name: "Game2048Tests", dependencies: gameTestDependencies("Game2048"), exclude: ["References"]),
        .testTarget(name: "MemoryMatchTests", dependencies: gameTestDependencies("MemoryMatch"), exclude: ["References"]),
        .testTarget(name: "BenchTests", dependencies: ["boardwalk-bench", "Platform"]),
        // The add-a-game recipe (docs/ARCHITECTURE.md) followed in the tests: a fifth game's
        // module and its test, which runs it in the kiosk beside the four.
        .target(name: "FindTheBall", dependencies: ["GameCore", "UI", "Graphics", "Input", "Audio"], path: "Tests/FindTheBall"),
        .testTarget(name: "FindTheBallTests", dependencies: gameTestDependencies("FindTheBall") + ["Arcade"], exclude: ["References"]),
        .testTarget(name: "ArcadeTests", dependencies: ["Arcade", "Platform", "Graphics", "Input", "Audio", "UI", "Display",
                                                        "GameCore", "BeatZombies", "GuessPicture", "ScreenGeometry", "TestSupport"], exclude: ["References"]),
    ],
    swiftLanguageModes: [.v6]
)
