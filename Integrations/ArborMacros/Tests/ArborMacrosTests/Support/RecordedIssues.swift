import Synchronization
import Testing

/// Runs `body` and returns the text of each issue it records (ArborTesting records an unpatched
/// placeholder's report as one), marking them known so that the test checks them itself.
///
/// An error `body` throws is returned too, as `thrown: ` and its description.
func recordedIssues(_ body: () throws -> Void) -> [String] {
  let issues = Mutex<[String]>([])
  withKnownIssue(isIntermittent: true) {
    do { try body() } catch { issues.withLock { $0.append("thrown: \(error)") } }
  } matching: { issue in
    issues.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
    return true
  }
  return issues.withLock { $0 }
}

/// ``recordedIssues(_:)`` for an async body.
func recordedIssues(_ body: () async throws -> Void) async -> [String] {
  let issues = Mutex<[String]>([])
  await withKnownIssue(isIntermittent: true) {
    do { try await body() } catch { issues.withLock { $0.append("thrown: \(error)") } }
  } matching: { issue in
    issues.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
    return true
  }
  return issues.withLock { $0 }
}

/// The text of the issue an unpatched placeholder records, as the core renders it.
func unimplementedIssue(_ member: String, at site: String) -> String {
  let feature = member.split(separator: ".")[0]
  return """
    FeatureUnimplemented: Unimplemented: \(member)
    ├─ placeholder at: \(site)
    └─ fix: patch it in the test with features.patch(\\\(member), with: ...),
            or resolve \(feature) from a tree that registers an implementation
    """
}
