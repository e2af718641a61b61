// swift-tools-version: 6.0
// Arbor for Vapor 4: a branch per request, sessions kept in `KeyedBranches`, Arbor's diagnostics
// mapped to responses and logs, and the root validated at boot and closed at shutdown with the
// application's lifecycle.
//
// A nested package, so the root package keeps no dependencies.
//
//   swift build
//   swift test
import PackageDescription

let package = Package(
  name: "ArborVapor",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18)],
  products: [
    .library(name: "ArborVapor", targets: ["ArborVapor"])
  ],
  dependencies: [
    .package(name: "Arbor", path: "../.."),
    .package(name: "ArborServiceLifecycle", path: "../ArborServiceLifecycle"),
    .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "ArborVapor",
      dependencies: [
        .product(name: "Arbor", package: "Arbor"),
        .product(name: "ArborServiceLifecycle", package: "ArborServiceLifecycle"),
        .product(name: "Vapor", package: "vapor"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/ArborVapor"
    ),
    .testTarget(
      name: "ArborVaporTests",
      dependencies: [
        "ArborVapor",
        .product(name: "ArborServiceLifecycleTesting", package: "ArborServiceLifecycle"),
        .product(name: "ArborIntegrationFixtures", package: "ArborServiceLifecycle"),
        .product(name: "VaporTesting", package: "vapor"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/ArborVaporTests"
    ),
    // The README's server, with the products its install section names (and the README check).
    .testTarget(
      name: "ArborVaporReadmeTests",
      dependencies: [
        .product(name: "ArborIntegrationFixtures", package: "ArborServiceLifecycle"),
        .product(name: "ArborServiceLifecycleTesting", package: "ArborServiceLifecycle"),
        "ArborVapor",
        .product(name: "Vapor", package: "vapor"),
        .product(name: "VaporTesting", package: "vapor"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/ArborVaporReadmeTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
