/// A loader requested, through other loaders, the feature it was loading: a cycle, reported instead
/// of recursing forever or deadlocking.
///
/// It is found on one thread by the resolution path, and across threads when two loads would wait
/// for each other. Loaders on the way do not wrap it, so it reaches the caller as it was thrown.
///
/// ```
/// CircularDependency: Alpha requires itself
/// ├─ requested at: App/Beta.swift:9
/// ├─ scope: Root
/// ├─ path: Alpha → Beta → Alpha
/// ├─ requests: Alpha at App/Main.swift:4
/// │            Beta at App/Alpha.swift:7
/// │            Alpha at App/Beta.swift:9
/// └─ fix: break the cycle: let Alpha or Beta resolve the other when a member is called, not in its loader
/// ```
public struct CircularDependency: DiagnosticError {
  /// The features on the loop, from the first request of the repeated feature to its repetition.
  public let path: [any Feature.Type]
  /// The whole loop, with the site of every request.
  public let diagnostic: Diagnostic

  init(_ frames: [LoadFrame], closingWith feature: any Feature.Type, in branch: Branch, at location: SourceLocation) {
    let start = frames.firstIndex { $0.feature == feature } ?? 0
    let loop = Array(frames[start...])
    path = loop.map(\.feature) + [feature]
    var diagnostic = Diagnostic(
      kind: "CircularDependency", message: "\(feature) requires itself", feature: feature, in: branch,
      frames: loop, closingWith: feature, at: location)
    diagnostic.notes.append(
      .init(
        "requests",
        diagnostic.path.map { step in step.location.map { "\(step.feature) at \($0)" } ?? step.feature }
          .joined(separator: "\n")))
    var names: [String] = []
    for step in diagnostic.path.dropLast() where !names.contains(step.feature) { names.append(step.feature) }
    diagnostic.fix =
      names.count == 1
      ? "\(feature)'s loader must not request \(feature); build it from other features"
      : "break the cycle: let \(names.joined(separator: " or ")) resolve the other when a member is called,"
        + " not in its loader"
    self.diagnostic = diagnostic
  }
}
