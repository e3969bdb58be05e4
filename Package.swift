// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Tandem",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tandem", targets: ["tandem"]),
        .executable(name: "tandem-bench", targets: ["tandem-bench"]),
        .library(name: "TandemCore", targets: ["TandemCore"]),
        .library(name: "TandemHTTP", targets: ["TandemHTTP"]),
        // For the fuzz package (Tests/Fuzz), which reaches them by path.
        .library(name: "TandemStore", targets: ["TandemStore"]),
        .library(name: "TandemServer", targets: ["TandemServer"]),
        .library(name: "TandemTestSupport", targets: ["TandemTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // System libraries: Debian's -dev packages, see README.
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CLibpq", providers: [.apt(["libpq-dev"])]),

        .target(
            name: "TandemHTTP",
            dependencies: [
                "COpenSSL", "CZlib", "CLinux",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "TandemCore"),
        .target(
            name: "TandemStore",
            dependencies: ["CLibpq", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .target(
            name: "TandemServer",
            dependencies: [
                "TandemHTTP", "TandemCore", "TandemStore", "COpenSSL",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "tandem",
            dependencies: [
                "TandemServer", "TandemHTTP", "TandemStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "tandem-bench", dependencies: ["TandemCore", "CLinux"]),
        .executableTarget(name: "tandem-load", dependencies: ["CLinux", "CZlib"]),

        // What the test targets share (a seeded random generator).
        .target(name: "TandemTestSupport", path: "Tests/TandemTestSupport"),
        .testTarget(name: "TandemHTTPTests", dependencies: ["TandemHTTP", "TandemTestSupport", "CZlib"]),
        .testTarget(name: "TandemCoreTests", dependencies: ["TandemCore", "TandemTestSupport"]),
        .testTarget(name: "TandemStoreTests", dependencies: ["TandemStore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TandemServerTests", dependencies: ["TandemServer", "TandemHTTP", "TandemCore", "TandemStore", "TandemTestSupport", "COpenSSL"]),
    ],
    swiftLanguageModes: [.v6]
)
