import Arbor

/// A test used ``TestFeatures(file:line:)``'s API in a way that cannot work: patching features that are not a
/// test container, loading a loader as another feature than the one it loads, or loading an `async`
/// loader without `await`.
///
/// Patches report it (as a test failure in a test); ``Arbor/Features/load(_:context:file:line:)-994eq``
/// throws it.
///
/// ```
/// TestFeaturesMisuse: Greeter.live() loads Greeter, not Printer
/// ├─ requested at: AppTests/GreeterTests.swift:12
/// └─ fix: ask for the feature the loader loads: let greeter: Greeter = try features.load(Greeter.live())
/// ```
package struct TestFeaturesMisuse: DiagnosticError {
  /// What was misused, where, and how to fix it.
  package let diagnostic: Diagnostic

  private init(_ message: String, feature: String, at location: SourceLocation, fix: String) {
    diagnostic = Diagnostic(
      kind: "TestFeaturesMisuse", message: message, location: location, feature: feature, fix: fix)
  }

  /// A patch (`change`: `patch Clock`) of features that no ``TestFeatures(file:line:)`` or
  /// ``TestFeatures(_:file:line:)`` made.
  static func notATestContainer(_ change: String, at location: SourceLocation) -> Self {
    Self(
      "cannot \(change): these features are not a test container", feature: "Features", at: location,
      fix: "patch a container made for the test: let features = TestFeatures(),"
        + "\nor TestFeatures(root) to patch a copy of a real tree")
  }

  /// A synchronous `load(loader)` of a loader that is `async`.
  static func asyncLoaderLoadedSynchronously(_ loader: FeatureLoader, at location: SourceLocation) -> Self {
    let loaded = loader.registration.feature
    return Self(
      "\(loader.implementation) loads \(loaded) asynchronously", feature: "\(loaded)", at: location,
      fix: "await it: let \(variableName(loaded)): \(loaded) = try await features.load(\(loader.implementation))")
  }

  /// A synchronous `load(loader)`, off the main actor, of a loader that runs on the main actor.
  static func mainActorLoaderLoadedOffMainActor(_ loader: FeatureLoader, at location: SourceLocation) -> Self {
    let loaded = loader.registration.feature
    return Self(
      "\(loader.implementation) loads \(loaded) on the main actor", feature: "\(loaded)", at: location,
      fix: "load it from a @MainActor test, or await it: let \(variableName(loaded)): \(loaded) = "
        + "try await features.load(\(loader.implementation))")
  }

  /// `load(loader)` asked for `requested`, but `loader` loads another feature.
  static func loaderOfAnotherFeature(
    _ loader: FeatureLoader, requested: any Feature.Type, at location: SourceLocation
  ) -> Self {
    let loaded = loader.registration.feature
    let load = loader.registration.isAsync ? "try await features.load" : "try features.load"
    return Self(
      "\(loader.implementation) loads \(loaded), not \(requested)", feature: "\(requested)", at: location,
      fix:
        "ask for the feature the loader loads: let \(variableName(loaded)): \(loaded) = \(load)(\(loader.implementation))"
    )
  }
}

/// `greeter` for `Greeter`: the name a fix gives the variable it declares.
private func variableName(_ feature: any Feature.Type) -> String {
  let name = String(describing: feature)
  return name.prefix(1).lowercased() + name.dropFirst()
}
