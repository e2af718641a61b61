// swift-tools-version: 6.1
// Arbor's benchmarks, side by side with its peers and hand-written wiring.
//
// A nested package, so the root package keeps no dependencies. Run every case for every library in
// one release run:
//
//   swift run -c release arbor-benchmarks               # the full run (a few minutes)
//   swift run -c release arbor-benchmarks --scale 0.001 # a smoke run, as CI does
import PackageDescription

let package = Package(
  name: "ArborBenchmarks",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "arbor-benchmarks", targets: ["ArborBenchmarks"])
  ],
  dependencies: [
    .package(name: "Arbor", path: "../"),
    .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    // No default traits: the benchmark needs neither Clocks nor CombineSchedulers, and leaving them
    // out keeps the release build short.
    .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1", traits: []),
    // The middleware curve times the Hummingbird integration's middleware.
    .package(name: "ArborHummingbird", path: "../Integrations/ArborHummingbird"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // The Vapor middleware curve times the Vapor integration's middleware.
    .package(name: "ArborVapor", path: "../Integrations/ArborVapor"),
    .package(url: "https://github.com/vapor/vapor", exact: "4.122.3"),
  ],
  targets: [
    .executableTarget(
      name: "ArborBenchmarks",
      dependencies: [
        .product(name: "Arbor", package: "Arbor"),
        .product(name: "Swinject", package: "Swinject"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "ArborHummingbird", package: "ArborHummingbird"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArborVapor", package: "ArborVapor"),
        .product(name: "Vapor", package: "vapor"),
        "CProcessFacts",
      ],
      path: "Sources/ArborBenchmarks"
    ),
    // The heap in use and a thread's stack size, which Swift's C modules do not export.
    .target(name: "CProcessFacts", path: "Sources/CProcessFacts"),
  ],
  swiftLanguageModes: [.v6]
)
