/// A request, branch or context lookup was made through a branch that is closed, or below one.
///
/// From the moment ``Features/close(file:line:isolation:)`` starts on a branch, the branch and every branch
/// below it refuse new work, while its teardowns release what its instances hold. Other branches,
/// and the rest of the tree, are untouched. The diagnostic names the branch whose `close()` was
/// called, and where.
///
/// ```
/// FeaturesClosed: cannot resolve Greeter: its branch is closed
/// ├─ requested at: App/Handler.swift:30
/// ├─ scope: Root › SessionScope(Session(user: "ann"))
/// ├─ closed: Root › SessionScope(Session(user: "ann")), at App/Main.swift:51
/// └─ fix: request Greeter before the branch is closed, or through a branch that is open
///         (a new one, made with branch(...) from an open branch)
/// ```
public struct FeaturesClosed: DiagnosticError {
  /// What the failing call asked for.
  package enum Request: Sendable {
    /// An instance of a feature.
    case resolving(any Any.Type)
    /// A branch of a scope.
    case branching(any FeaturesScope.Type)
    /// The context of a scope.
    case readingContext(any FeaturesScope.Type)
    /// A renewal of a feature's cached instance.
    case refreshing(any Any.Type)
    /// Anything else, named: `the value of RequestTimeout`.
    case using(String)

    var message: String {
      switch self {
      case .resolving(let feature): "cannot resolve \(feature): its branch is closed"
      case .branching(let scope): "cannot branch \(scope.name): the branch it is made from is closed"
      case .readingContext(let scope): "cannot read the context of \(scope.name): its branch is closed"
      case .refreshing(let feature): "cannot refresh \(feature): its branch is closed"
      case .using(let what): "cannot use \(what): its branch is closed"
      }
    }

    var what: String {
      switch self {
      case .resolving(let feature): "request \(feature)"
      case .branching(let scope): "branch \(scope.name)"
      case .readingContext(let scope): "read the context of \(scope.name)"
      case .refreshing(let feature): "refresh \(feature)"
      case .using(let what): "use \(what)"
      }
    }
  }

  /// What failed, where, which branch was closed, and how to fix it.
  public let diagnostic: Diagnostic

  /// The error of `request`, made at `location` through `branch` once it is closed (or made under
  /// a closing parent): names the branch whose `close()` closed it, and where that was called.
  package init(_ request: Request, through branch: Branch, requestedAt location: SourceLocation) {
    var current: Branch? = branch
    while let closing = current {
      if let closer = closing.state.withLock({ $0.lifecycle.closer }) {
        var closedPath: ScopePath? = closing.path
        for _ in 0..<closer.levelsUp { closedPath = closedPath?.parent }
        self.init(request, in: branch, closed: closedPath, at: closer.site, requestedAt: location)
        return
      }
      // Closed as it was made, under a closing parent: the parent says who closed it.
      current = closing.parent
    }
    self.init(request, in: branch, closed: nil, at: nil, requestedAt: location)
  }

  /// - Parameters:
  ///   - closedPath: The path of the branch whose `close()` was called, if known.
  ///   - closeSite: Where it was called.
  private init(
    _ request: Request, in branch: Branch, closed closedPath: ScopePath?, at closeSite: SourceLocation?,
    requestedAt location: SourceLocation
  ) {
    var diagnostic = Diagnostic(
      kind: "FeaturesClosed", message: request.message, location: location, scope: branch.path.diagnosticSteps)
    if let closedPath {
      var closed = closedPath.rendered
      if let closeSite { closed += ", at \(closeSite)" }
      if closedPath !== branch.path { closed += "\n(this branch is below it)" }
      diagnostic.notes = [.init("closed", closed)]
    }
    diagnostic.fix =
      "\(request.what) before the branch is closed, or through a branch that is open"
      + "\n(a new one, made with branch(...) from an open branch)"
    self.diagnostic = diagnostic
  }
}
