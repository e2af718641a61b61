// swift-tools-version: 6.0
// Arbor properties backed by swift-configuration: a property names its configuration key, a
// registry reads it from a ConfigReader, and a reloading provider's changes reach `observe()`.
//
// A nested package, so the root package keeps no dependencies.
//
//   swift build
//   swift test
import PackageDescription

let package = Package(
  name: "ArborConfiguration",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "ArborConfiguration", targets: ["ArborConfiguration"])
  ],
  dependencies: [
    .package(name: "Arbor", path: "../.."),
    // The default traits (JSON files) only; an app that wants ReloadingFileProvider, YAML or the
    // command line enables those traits on its own dependency on swift-configuration.
    .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
  ],
  targets: [
    .target(
      name: "ArborConfiguration",
      dependencies: [
        .product(name: "Arbor", package: "Arbor"),
        .product(name: "Configuration", package: "swift-configuration"),
      ],
      path: "Sources/ArborConfiguration"
    ),
    .testTarget(
      name: "ArborConfigurationTests",
      dependencies: [
        "ArborConfiguration",
        .product(name: "ArborTesting", package: "Arbor"),
        .product(name: "Configuration", package: "swift-configuration"),
      ],
      path: "Tests/ArborConfigurationTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
