// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for Tandem's parsers and decoders, apart from the main package so that its
// `swift build --build-tests` never sees them. `scripts/fuzz.sh` builds them with
// `-sanitize=fuzzer,address -enable-testing` (they `@testable import` the internal decoders).
//
// Each target's main.swift hands its test function to libFuzzer's driver (`LLVMFuzzerRunDriver`,
// linked in by `-sanitize=fuzzer`): SwiftPM aims `main` at the target's own entry point with
// `--defsym`, so a target with only `LLVMFuzzerTestOneInput` gets an empty main, not libFuzzer's.
// gold stops with an internal error linking these (libFuzzer, ASan and Swift together); lld links them.
let lld: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"])]

let package = Package(
    name: "TandemFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Tandem", path: "../..")],
    targets: [
        .systemLibrary(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer", .product(name: "TandemCore", package: "Tandem")]),
        .executableTarget(name: "FuzzHTTP", dependencies: [
            "FuzzSupport", .product(name: "TandemHTTP", package: "Tandem"), .product(name: "TandemTestSupport", package: "Tandem"),
        ], linkerSettings: lld),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport", .product(name: "TandemServer", package: "Tandem")], linkerSettings: lld),
        .executableTarget(name: "FuzzEditBody", dependencies: [
            "FuzzSupport", .product(name: "TandemServer", package: "Tandem"), .product(name: "TandemHTTP", package: "Tandem"),
            .product(name: "TandemCore", package: "Tandem"),
        ], linkerSettings: lld),
        .executableTarget(name: "FuzzJournal", dependencies: [
            "FuzzSupport", .product(name: "TandemServer", package: "Tandem"), .product(name: "TandemCore", package: "Tandem"),
        ], linkerSettings: lld),
        .executableTarget(name: "FuzzChangeRun", dependencies: [
            "FuzzSupport", .product(name: "TandemStore", package: "Tandem"), .product(name: "TandemServer", package: "Tandem"),
        ], linkerSettings: lld),
        .executableTarget(name: "FuzzSnapshot", dependencies: [
            "FuzzSupport", .product(name: "TandemServer", package: "Tandem"), .product(name: "TandemCore", package: "Tandem"),
            .product(name: "TandemHTTP", package: "Tandem"),
        ], linkerSettings: lld),
    ],
    swiftLanguageModes: [.v6]
)
