// swift-tools-version: 6.0
// @Feature: a macro that writes a feature's placeholder and memberwise initialiser from its struct
// of closures. The hand-written form stays supported; the core never needs this package.
//
// A nested package, so the root package keeps no dependencies.
//
//   swift build
//   swift test
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "ArborMacros",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "ArborMacros", targets: ["ArborMacros"])
  ],
  dependencies: [
    .package(name: "Arbor", path: "../.."),
    // Every swift-syntax the macro builds with: 600 (Swift 6.0) to 603. The expansion tests pin the
    // text that 602's and 603's test support print (600's formats and locates members differently).
    .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
  ],
  targets: [
    // The compiler plugin: runs at build time, in the compiler, never in the app.
    .macro(
      name: "ArborMacrosPlugin",
      dependencies: [
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
      ],
      path: "Sources/ArborMacrosPlugin"
    ),
    // What an app imports: the macro's declaration.
    .target(
      name: "ArborMacros",
      dependencies: ["ArborMacrosPlugin", .product(name: "Arbor", package: "Arbor")],
      path: "Sources/ArborMacros"
    ),
    .testTarget(
      name: "ArborMacrosTests",
      dependencies: [
        "ArborMacros",
        "ArborMacrosPlugin",
        .product(name: "ArborTesting", package: "Arbor"),
        .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
      ],
      path: "Tests/ArborMacrosTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
