// swift-tools-version: 6.1
// TodoServer: a small real server on Arbor, with todos kept in SQLite: one framework-free app
// library (TodoFeatures) served by Hummingbird and by Vapor.
//
//   swift run todo-server         # Hummingbird, serves on 127.0.0.1:8080
//   swift run todo-server-vapor   # Vapor, the same routes
//   Scripts/load-test.sh          # each server against the same server wired by hand
//   swift test                    # the same route tests against each server
//
// A nested package, so the root package keeps no dependencies.
import PackageDescription

let package = Package(
  name: "TodoServer",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "todo-server", targets: ["TodoServer"]),
    .executable(name: "todo-server-vapor", targets: ["TodoServerVapor"]),
    .executable(name: "todo-server-hand-wired", targets: ["TodoServerHandWired"]),
    .executable(name: "todo-server-vapor-hand-wired", targets: ["TodoServerVaporHandWired"]),
  ],
  dependencies: [
    .package(name: "Arbor", path: "../.."),
    .package(name: "ArborServiceLifecycle", path: "../../Integrations/ArborServiceLifecycle"),
    .package(name: "ArborHummingbird", path: "../../Integrations/ArborHummingbird"),
    .package(name: "ArborVapor", path: "../../Integrations/ArborVapor"),
    .package(name: "ArborConfiguration", path: "../../Integrations/ArborConfiguration"),
    .package(name: "ArborMacros", path: "../../Integrations/ArborMacros"),
    .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
  ],
  targets: [
    // The app: its features, its tree, its configuration, its store. It knows no server framework.
    .target(
      name: "TodoFeatures",
      dependencies: [
        .product(name: "Arbor", package: "Arbor"),
        .product(name: "ArborConfiguration", package: "ArborConfiguration"),
        .product(name: "ArborMacros", package: "ArborMacros"),
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SQLiteNIO", package: "sqlite-nio"),
      ]
    ),
    // The app served by Hummingbird: its routes and application; the executable and the tests build
    // the same application from it.
    .target(
      name: "TodoApp",
      dependencies: [
        "TodoFeatures",
        .product(name: "Arbor", package: "Arbor"),
        .product(name: "ArborHummingbird", package: "ArborHummingbird"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The same app served by Vapor.
    .target(
      name: "TodoVapor",
      dependencies: [
        "TodoFeatures",
        .product(name: "ArborVapor", package: "ArborVapor"),
        .product(name: "Vapor", package: "vapor"),
      ]
    ),
    .executableTarget(name: "TodoServer", dependencies: ["TodoApp"]),
    .executableTarget(name: "TodoServerVapor", dependencies: ["TodoVapor"]),
    // The same server wired by hand, without Arbor: the load test's baseline.
    .executableTarget(
      name: "TodoServerHandWired",
      dependencies: [
        "TodoApp", .product(name: "Configuration", package: "swift-configuration"),
        // For the load test's STAGE only: a part of the Arbor server's request added to this one.
        .product(name: "Arbor", package: "Arbor"), .product(name: "ArborHummingbird", package: "ArborHummingbird"),
      ]),
    // The Vapor server wired by hand, without Arbor: the Vapor load test's baseline.
    .executableTarget(
      name: "TodoServerVaporHandWired",
      dependencies: [
        "TodoFeatures", "TodoVapor",
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "Vapor", package: "vapor"),
      ]),
    .testTarget(
      name: "TodoAppTests",
      dependencies: [
        "TodoApp",
        "TodoVapor",
        .product(name: "ArborTesting", package: "Arbor"),
        .product(name: "ArborServiceLifecycleTesting", package: "ArborServiceLifecycle"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "VaporTesting", package: "vapor"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
