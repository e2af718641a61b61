/// A loader requested, through other loaders, the feature it was loading: a cycle, reported instead
/// of recursing forever or deadlocking.
///
/// It is found on one thread by the resolution path, and across threads when two loads would wait
/// for each other. Loaders on the way do not wrap it, so it reaches the caller as it was thrown; its
/// diagnostic shows the whole resolution path and where every step on it was requested, so the loop
/// can be read, and broken, from the message alone.
///
/// ```
/// CircularDependency: Greeter requires itself through Printer
/// ├─ requested at: App/Printer.swift:9
/// ├─ scope: Root
/// ├─ path: Greeter → Printer → Greeter
/// ├─ requests: Greeter at App/Main.swift:4
/// │            Printer at App/Greeter.swift:7
/// │            Greeter at App/Printer.swift:9
/// └─ fix: break the cycle: let Greeter or Printer resolve the other when a member is called, not in its loader
/// ```
public struct CircularDependency: DiagnosticError {
  /// The features on the loop, from the first request of the repeated feature to its repetition.
  public let path: [any Feature.Type]
  /// The whole resolution path with the site of every request, and how to break the loop.
  public let diagnostic: Diagnostic

  /// - Parameters:
  ///   - loopStart: The index in `frames` of the load this request repeats, when known; otherwise
  ///     the first load of `feature`.
  ///   - incomparable: The context type of `feature` when its contexts cannot be compared, so a
  ///     request with another context could not be told from this cycle.
  init(
    _ frames: [LoadStep], closingWith feature: any Feature.Type, in branch: Branch, loopStart: Int? = nil,
    incomparable: (any Any.Type)? = nil, at location: SourceLocation
  ) {
    let start = loopStart ?? frames.firstIndex { $0.feature == feature } ?? 0
    path = frames[start...].map(\.feature) + [feature]
    var members: [String] = []
    for step in path.dropLast() where !members.contains(String(describing: step)) {
      members.append(String(describing: step))
    }
    let through = members.dropFirst()
    var diagnostic = Diagnostic(
      kind: "CircularDependency",
      message: "\(feature) requires itself" + (through.isEmpty ? "" : " through " + through.joined(separator: ", ")),
      feature: feature, in: branch, frames: frames, closingWith: feature, at: location)
    diagnostic.notes.append(
      .init(
        "requests",
        diagnostic.path.map { step in step.location.map { "\(step.feature) at \($0)" } ?? step.feature }
          .joined(separator: "\n")))
    if let incomparable {
      diagnostic.message =
        "\(feature) requests itself with a context of type \(incomparable), which cannot be compared:"
        + " a request with another context cannot be told from a cycle"
      diagnostic.fix =
        "make \(incomparable) Hashable: Arbor then runs a request with another context"
        + " and reports only a request with the same one"
      self.diagnostic = diagnostic
      return
    }
    switch members.count {
    case 1:
      diagnostic.fix = "\(feature)'s loader must not request \(feature); build it from other features"
    case 2:
      diagnostic.fix =
        "break the cycle: let \(members[0]) or \(members[1]) resolve the other when a member is called,"
        + " not in its loader"
    default:
      diagnostic.fix =
        "break the cycle: let one of \(members.joined(separator: ", ")) resolve the next when a member is called,"
        + " not in its loader"
    }
    self.diagnostic = diagnostic
  }
}
