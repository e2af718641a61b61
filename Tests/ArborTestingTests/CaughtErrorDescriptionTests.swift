import ArborDemoFeatures
import ArborTesting
import Foundation
import Testing

/// A test that throws one of Arbor's errors shows its whole diagnostic, fix included, where Swift
/// Testing reports the caught error.
@Suite struct CaughtErrorDescriptionTests {
  @Test func aCaughtErrorIsDescribedByItsWholeDiagnostic() throws {
    let features = TestFeatures()
    let error = try #require(
      #expect(throws: FeaturesScopeContextUnavailable.self) {
        let _: Greeter = try features.load(Greeter.live())
      })
    let described = String(describingForTest: error)
    #expect(described == String(reflecting: error))
    #expect(
      described.contains("└─ fix: give it in the test: features.use(context: <a Session>, for: SessionScope.self)"))
  }

  /// Every error type of the package conforms: the list is read from the sources.
  @Test func everyDiagnosticErrorDescribesItselfForTests() throws {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let sources = package.appendingPathComponent("Sources")
    let files = FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String] ?? []
    let declared = try files.filter { $0.hasSuffix(".swift") }.flatMap { file in
      try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
        .matches(of: /public struct (\w+): DiagnosticError/).map { String($0.1) }
    }
    let conformances = try String(
      contentsOf: sources.appendingPathComponent("Testing/Reporting/DiagnosticError+TestDescription.swift"),
      encoding: .utf8)
    #expect(declared.count >= 14)
    for error in declared {
      #expect(conformances.contains("extension \(error): "), "\(error) is shown by Swift Testing as one line")
    }
  }
}
