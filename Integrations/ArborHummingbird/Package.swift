// swift-tools-version: 6.0
// Arbor for Hummingbird 2: a branch per request, error mapping to responses and logs, and the
// root validated before the server starts and closed after it stops, through ArborServiceLifecycle.
//
// A nested package, so the root package keeps no dependencies.
//
//   swift build
//   swift test
import PackageDescription

let package = Package(
  name: "ArborHummingbird",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18)],
  products: [
    .library(name: "ArborHummingbird", targets: ["ArborHummingbird"])
  ],
  dependencies: [
    .package(name: "Arbor", path: "../.."),
    .package(name: "ArborServiceLifecycle", path: "../ArborServiceLifecycle"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "ArborHummingbird",
      dependencies: [
        .product(name: "Arbor", package: "Arbor"),
        .product(name: "ArborServiceLifecycle", package: "ArborServiceLifecycle"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/ArborHummingbird"
    ),
    .testTarget(
      name: "ArborHummingbirdTests",
      dependencies: [
        "ArborHummingbird",
        .product(name: "ArborServiceLifecycleTesting", package: "ArborServiceLifecycle"),
        .product(name: "ArborIntegrationFixtures", package: "ArborServiceLifecycle"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/ArborHummingbirdTests"
    ),
    // The README's server, with the products its install section names (and the README check).
    .testTarget(
      name: "ArborHummingbirdReadmeTests",
      dependencies: [
        .product(name: "ArborIntegrationFixtures", package: "ArborServiceLifecycle"),
        .product(name: "ArborServiceLifecycleTesting", package: "ArborServiceLifecycle"),
        "ArborHummingbird",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/ArborHummingbirdReadmeTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
