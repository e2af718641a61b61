import Arbor
import Testing

/// A Swift Testing trait that declares patches for every test container a test makes.
///
/// Put the patches a whole suite shares on the suite, and a test's own on the test: each container
/// the test makes with ``TestFeatures(file:line:)`` or ``TestFeatures(_:file:line:)`` starts with the suite's
/// patches, then the test's, in that order. The trait is read once, when the container is made;
/// from then on the container carries its patches, so tasks and closures that escape the test see
/// them. Nothing is shared between tests: each gets the patches applied to its own containers.
///
/// ```swift
/// @Suite(.features { $0.use(Clock(now: { 42 })) })
/// struct ClockTests {
///   @Test(.features { $0.patch(\Printer.print, with: { _ in }) })
///   func printsTheTime() throws {
///     let features = TestFeatures()  // Clock and Printer are patched
///   }
/// }
/// ```
public struct TestFeaturesTrait: TestTrait, SuiteTrait, TestScoping {
  let patch: @Sendable (Features) -> Void

  /// The patches of the traits of the running test, outermost first.
  @TaskLocal static var patches: [@Sendable (Features) -> Void] = []

  /// Applies the running test's patches to a new container.
  static func applyPatches(to features: Features) {
    for patch in patches { patch(features) }
  }

  /// `true`: a suite's patches apply to every test in it, nested suites included.
  public var isRecursive: Bool { true }

  /// The trait scopes each test case: a suite's patches are applied by the tests it contains.
  ///
  /// - Parameters:
  ///   - test: The test or suite the trait is on.
  ///   - testCase: The test case about to run, or `nil` for the test or suite as a whole.
  /// - Returns: This trait for a test case, `nil` otherwise.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    test.isSuite || testCase == nil ? nil : self
  }

  /// Runs a test case with this trait's patches added to those of its enclosing traits.
  ///
  /// - Parameters:
  ///   - test: The test.
  ///   - testCase: The test case.
  ///   - function: The test case's body.
  /// - Throws: Whatever the body throws.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    TestReporter.install(at: nil)
    try await Self.$patches.withValue(Self.patches + [patch]) { try await function() }
  }
}

extension Trait where Self == TestFeaturesTrait {
  /// Patches for every test container made in this test, or in every test of this suite.
  ///
  /// ```swift
  /// @Test(.features { features in
  ///   features.use(Clock(now: { 42 }))
  ///   features.use(context: Session(user: "ann"), for: SessionScope.self)
  /// })
  /// func greetsAnn() throws { ... }
  /// ```
  ///
  /// - Parameter patch: Patches a new container; it runs once for each container the test makes.
  /// - Returns: The trait.
  public static func features(_ patch: @escaping @Sendable (Features) -> Void) -> Self {
    TestFeaturesTrait(patch: patch)
  }
}
