// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Greetings",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [
    .package(path: "../arbor")
  ],
  targets: [
    .executableTarget(
      name: "Greetings",
      dependencies: [.product(name: "Arbor", package: "arbor")]
    ),
    .testTarget(
      name: "GreetingsTests",
      dependencies: ["Greetings", .product(name: "ArborTesting", package: "arbor")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
