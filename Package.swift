// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "Arbor",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Arbor", targets: ["Arbor"]),
    .library(name: "ArborTesting", targets: ["ArborTesting"]),
    .executable(name: "arbor-demo", targets: ["ArborDemo"]),
  ],
  targets: [
    .target(name: "ArborDiagnostics", path: "Sources/Diagnostics"),
    .target(name: "ArborScopes", dependencies: ["ArborDiagnostics"], path: "Sources/Scopes"),
    .target(name: "Arbor", dependencies: ["ArborDiagnostics", "ArborScopes"], path: "Sources/Core"),
    .target(name: "ArborTesting", dependencies: ["Arbor"], path: "Sources/Testing"),
    // The demo's features and trees: a library of the package only (no product), which the demo and
    // the tests import.
    .target(name: "ArborDemoFeatures", dependencies: ["Arbor"], path: "Sources/DemoFeatures"),
    .executableTarget(name: "ArborDemo", dependencies: ["Arbor", "ArborDemoFeatures"], path: "Sources/Demo"),
    // What the test targets wait with (conditions, each bounded by a timeout) and run child processes with.
    .target(name: "ArborTestSupport", dependencies: ["ArborDiagnostics"], path: "Tests/ArborTestSupport"),
    .testTarget(
      name: "ArborTests", dependencies: ["Arbor", "ArborDemoFeatures", "ArborTestSupport"], path: "Tests/ArborTests"),
    .testTarget(
      name: "ArborDiagnosticsTests", dependencies: ["Arbor", "ArborDemoFeatures", "ArborTestSupport"],
      path: "Tests/ArborDiagnosticsTests"),
    .testTarget(name: "ArborDocsTests", dependencies: ["Arbor", "ArborTestSupport"], path: "Tests/ArborDocsTests"),
    .testTarget(
      name: "ArborTestingTests", dependencies: ["ArborTesting", "ArborDemoFeatures", "ArborTestSupport"],
      path: "Tests/ArborTestingTests"),
    // The getting-started tutorial's app and its tests (Sources/Core/Arbor.docc/Tutorials).
    .testTarget(name: "ArborTutorialTests", dependencies: ["ArborTesting"], path: "Tests/ArborTutorialTests"),
    // Built as a new app target is: main-actor code by default, and nonisolated async functions
    // running on their caller's actor. Arbor's public API must compile and run here.
    .testTarget(
      name: "ArborAppTests", dependencies: ["Arbor", "ArborTesting", "ArborTestSupport"], path: "Tests/ArborAppTests",
      swiftSettings: [.defaultIsolation(MainActor.self), .enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
  ],
  swiftLanguageModes: [.v6]
)

// Added to each target's own settings, never replacing them.
for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
