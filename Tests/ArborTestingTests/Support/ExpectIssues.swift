import ArborDiagnostics
import ArborTesting
import Testing

/// Runs `body` and expects ArborTesting's reporter to make exactly the issues `expected`, in order,
/// each compared by its whole text and attributed to the running test.
///
/// The reporter runs as in any test up to recording the issue, which it hands to the capture instead
/// (see ``capturingIssues(_:)``): the test checks what a user would see, and a green run shows no
/// known issue for it.
func expectIssues(
  _ expected: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () throws -> Void
) rethrows {
  let issues = try capturingIssues(body)
  #expect(issues.map(\.text) == expected, sourceLocation: sourceLocation)
  #expect(issues.allSatisfy { $0.sourceLocation == Test.current?.sourceLocation }, sourceLocation: sourceLocation)
}

/// An issue ArborTesting's reporter made for a Swift Testing test: its text, and the location it is
/// attributed to.
struct CapturedIssue: Sendable, Equatable {
  var text: String
  var sourceLocation: Testing.SourceLocation
}

/// Runs `body` with ArborTesting's reporter handing the issues it makes to a capture
/// (`TestReporter.issueCapture`) instead of recording them.
///
/// - Returns: The issues, in order.
func capturingIssues(_ body: () throws -> Void) rethrows -> [CapturedIssue] {
  let issues = Lock<[CapturedIssue]>.make([])
  try TestReporter.$issueCapture.withValue(
    IssueReporting.Capture { comment, location in
      issues.withLock { $0.append(CapturedIssue(text: comment.rawValue, sourceLocation: location)) }
    }
  ) { try body() }
  return issues.withLock { $0 }
}

/// ``capturingIssues(_:)`` for an async body: the tasks it starts are captured too.
func capturingIssues(
  isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async rethrows -> [CapturedIssue] {
  let issues = Lock<[CapturedIssue]>.make([])
  try await TestReporter.$issueCapture.withValue(
    IssueReporting.Capture { comment, location in
      issues.withLock { $0.append(CapturedIssue(text: comment.rawValue, sourceLocation: location)) }
    }
  ) { try await body() }
  return issues.withLock { $0 }
}

/// The text of the issue an unpatched placeholder records.
func unimplementedIssue(_ member: String, at site: String) -> String {
  let feature = member.split(separator: ".")[0]
  return """
    FeatureUnimplemented: Unimplemented: \(member)
    ├─ placeholder at: \(site)
    └─ fix: patch it in the test with features.patch(\\\(member), with: ...),
            or resolve \(feature) from a tree that registers an implementation
    """
}

/// The text of the report an unpatched placeholder makes outside a test.
func unimplementedReport(_ member: String, at site: String) -> String {
  let feature = member.split(separator: ".")[0]
  return """
    FeatureUnimplemented: Unimplemented: \(member)
    ├─ placeholder at: \(site)
    └─ fix: register an implementation of \(feature) with registry.use(...) in the tree it was resolved from,
            or implement \(member) in the one registered there
    """
}

/// Where the demo's placeholders are written (Sources/DemoFeatures), as reports show them.
enum PlaceholderSite {
  static let clock = "ArborDemoFeatures/Clock.swift:20"
  static let printer = "ArborDemoFeatures/Printer.swift:21"
  static let mailer = "ArborDemoFeatures/Mailer.swift:21"
}
