import ArborTesting
import Testing

/// Runs `body` and expects it to record exactly the issues `expected`, in order, each compared by its
/// whole text.
///
/// `withKnownIssue` alone passes when at least one matching issue is recorded; the count makes it
/// "exactly these".
func expectIssues(
  _ expected: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () throws -> Void
) rethrows {
  let recorded = Lines()
  try withKnownIssue(sourceLocation: sourceLocation) {
    try body()
  } matching: { issue in
    let text = issue.comments.map(\.rawValue).joined(separator: "\n")
    recorded.append(text)
    return expected.contains(text)
  }
  #expect(recorded.all == expected, sourceLocation: sourceLocation)
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

/// Where the demo's placeholders are written (Sources/DemoFeatures), as reports show them.
enum PlaceholderSite {
  static let clock = "ArborDemoFeatures/Clock.swift:20"
  static let printer = "ArborDemoFeatures/Printer.swift:21"
  static let mailer = "ArborDemoFeatures/Mailer.swift:21"
}
