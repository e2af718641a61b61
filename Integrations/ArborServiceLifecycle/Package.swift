// swift-tools-version: 6.0
// Arbor on swift-service-lifecycle, for any Swift server: the service that validates, starts and
// closes a root, the reporter that routes Arbor's reports to a `Logger`, idle eviction of
// `KeyedBranches`, and a diagnostic as structured log metadata. ArborHummingbird and ArborVapor
// build on it.
//
// A nested package, so the root package keeps no dependencies.
//
//   swift build
//   swift test
import PackageDescription

let package = Package(
  name: "ArborServiceLifecycle",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18)],
  products: [
    .library(name: "ArborServiceLifecycle", targets: ["ArborServiceLifecycle"]),
    // Test support for servers built on it: a log handler that keeps what was logged.
    .library(name: "ArborServiceLifecycleTesting", targets: ["ArborServiceLifecycleTesting"]),
    // The test tree, scopes and helpers the tests of Arbor's server integrations share; not for apps.
    .library(name: "ArborIntegrationFixtures", targets: ["ArborIntegrationFixtures"]),
  ],
  dependencies: [
    .package(name: "Arbor", path: "../.."),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "ArborServiceLifecycle",
      dependencies: [
        .product(name: "Arbor", package: "Arbor"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/ArborServiceLifecycle"
    ),
    .target(
      name: "ArborServiceLifecycleTesting",
      dependencies: [.product(name: "Logging", package: "swift-log")],
      path: "Sources/ArborServiceLifecycleTesting"
    ),
    .target(
      name: "ArborIntegrationFixtures",
      dependencies: [.product(name: "Arbor", package: "Arbor"), "ArborServiceLifecycleTesting"],
      path: "Tests/ArborIntegrationFixtures"
    ),
    .testTarget(
      name: "ArborServiceLifecycleTests",
      dependencies: [
        "ArborServiceLifecycle",
        "ArborServiceLifecycleTesting",
        "ArborIntegrationFixtures",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/ArborServiceLifecycleTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
