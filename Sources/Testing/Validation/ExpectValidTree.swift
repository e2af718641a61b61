import Arbor
import ArborDiagnostics

/// Validates the whole tree of `features` (see ``/Arbor/Features/validate(_:file:line:)``) and
/// records each problem as its own test failure of the running test, its text the problem's
/// diagnostic (which names the site to fix): a test of an app's wiring is one line. `contexts` runs on
/// the caller's actor, so a main-actor test may build contexts from main-actor code.
///
/// ```swift
/// @Test func theAppTreeIsSound() async {
///   await expectValidTree(DemoTree.root()) { contexts in
///     contexts.use(Session(user: "check"), for: SessionScope.self)
///   }
/// }
/// ```
///
/// - Parameters:
///   - features: Any branch of the tree to validate.
///   - contexts: Gives a context for each scope whose `Context` is not `Void`.
///   - file: Where the check is made; captured for you.
///   - line: Where the check is made; captured for you.
/// - Returns: The validation, for further checks of its notes or graph.
@discardableResult
public nonisolated(nonsending) func expectValidTree(
  _ features: Features, _ contexts: (inout ValidationContexts) -> Void = { _ in }, file: StaticString = #fileID,
  line: UInt = #line
) async -> FeaturesValidation {
  TestReporter.install(at: SourceLocation(fileID: file, line: line))
  let validation = await features.validate(contexts, file: file, line: line)
  for problem in validation.problems {
    IssueReporting.report(problem.diagnostic, severity: .failure)
  }
  return validation
}
