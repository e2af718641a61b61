/// One validation pass over a tree's definitions: branches each defined scope with the contexts
/// given, in each place the app branches it, runs each of its loaders once there through a
/// ``ValidationRecorder``, then finds the cycles in what they requested and draws the graph.
///
/// A scope is checked below the scope that defines it, unless places are declared for it
/// (``ValidationContexts/branch(_:from:)``) or inferred: a scope whose loaders read the context of
/// another scope validation branches, which the place that defines it does not have, is checked
/// below that scope instead.
struct ValidationWalk {
  let recorder: ValidationRecorder
  let contexts: ValidationContexts
  let location: SourceLocation
  /// The validation branch each loader was checked in, by its binding.
  private var branches: [ObjectIdentifier: Branch] = [:]
  private var notes: [FeaturesValidation.Note] = []
  /// The definitions walked, in order, with their graph clusters.
  private var scopes: [(definition: ScopeDefinition, scope: FeaturesGraph.Scope)] = []
  /// Every branch checked, with its cluster: kept open until the scopes branched from it are checked.
  private var checked: [(features: Features, branch: Branch, cluster: String)] = []
  /// The scopes whose context a loader read where no branch of them was on the path.
  private var misses: [(binding: Binding, scope: any FeaturesScope.Type)] = []
  /// The bindings whose registration conflicts are reported: once, however many places check them.
  private var conflicting: [ObjectIdentifier] = []
  /// The places inferred, each scope with the scope whose branches it is checked below.
  private var inferred: [(scope: any FeaturesScope.Type, parent: any FeaturesScope.Type)] = []

  init(recorder: ValidationRecorder, contexts: ValidationContexts, location: SourceLocation) {
    self.recorder = recorder
    self.contexts = contexts
    self.location = location
  }

  /// Checks the tree whose validation root `root` views: every scope where it is defined, then
  /// every scope declared or inferred to be branched from another below each branch of that one.
  mutating func run(_ root: Features) async {
    await check(root, parent: nil)
    let places = contexts.declared + inferred
    var next = 0
    // Checking a scope in a place makes branches that other scopes may be branched from.
    while next < checked.count {
      let (_, branch, cluster) = checked[next]
      next += 1
      for place in places where place.parent == branch.definition.scope {
        // A scope is never branched below one of its own branches here: declared places can loop.
        guard !branch.path.steps.contains(where: { $0.scope == place.scope }) else { continue }
        await check(place.scope, below: branch, cluster: cluster)
      }
    }
    guard let root = checked.first?.branch else { return }
    for place in places where contexts.hasContext(for: place.scope) {
      guard !checked.contains(where: { $0.branch.definition.scope == place.parent }) else { continue }
      recorder.record(
        FeaturesScopeUnchecked(
          place.scope, from: place.parent, defined: !root.definitions(of: place.parent).isEmpty,
          declared: contexts.places(of: place.scope) != nil, in: root, at: location))
    }
  }

  /// Checks the branch `features` views, and the scopes its definition defines that are branched
  /// where they are defined.
  private mutating func check(_ features: Features, parent: String?) async {
    let branch: Branch
    do {
      branch = try features.branch(at: location)
    } catch {
      return  // the validation tree is held by this walk: never released
    }
    let definition = branch.definition
    cluster(definition, parent: parent)
    let cluster = scopes[scopes.count - 1].scope.id
    checked.append((features, branch, cluster))
    for binding in definition.bindings {
      branches[ObjectIdentifier(binding)] = branch
      if !binding.conflicts.isEmpty, !conflicting.contains(ObjectIdentifier(binding)) {
        conflicting.append(ObjectIdentifier(binding))
        recorder.record(FeatureRegistrationConflict(binding, in: branch, at: binding.site))
      }
      guard binding.registration.lifetime != .static, !recorder.replaces(binding.registration.feature) else { continue }
      await checkLoader(of: binding, in: branch)
    }
    for child in definition.children.values.sorted(by: { $0.scope.name < $1.scope.name }) {
      guard contexts.hasContext(for: child.scope) else {
        recorder.record(FeaturesScopeUnchecked(child, below: branch, at: location))
        clusterUnchecked(child, parent: cluster)
        continue
      }
      // Checked below each branch of the scopes it is declared to be branched from.
      guard contexts.places(of: child.scope) == nil else { continue }
      let mark = self.mark
      await check(child.scope, below: branch, cluster: cluster)
      guard let miss = inferredPlace(of: child, since: mark.misses) else { continue }
      // Its loaders read the context of a scope it is not branched below here: the app branches it
      // below that scope, so what was found here is not what the app's branches find.
      forget(since: mark)
      inferred.append((child.scope, miss.scope))
      note(
        miss.binding,
        "reads the context of \(miss.scope.name), so \(child.scope.name) was checked below branches of "
          + "\(miss.scope.name), not of \(branch.definition.scope.name); to check it elsewhere, declare each place "
          + "the app branches it from: contexts.branch(\(child.scope.name).self, from: ...)")
    }
  }

  /// How much the walk has found: what to forget back to when a scope turns out to be checked
  /// where the app does not branch it.
  private struct Mark {
    let recorded: (requests: Int, problems: Int)
    let notes: Int
    let scopes: Int
    let checked: Int
    let misses: Int
    let conflicting: Int
  }

  private var mark: Mark {
    Mark(
      recorded: recorder.mark, notes: notes.count, scopes: scopes.count, checked: checked.count, misses: misses.count,
      conflicting: conflicting.count)
  }

  /// Forgets what the walk found since `mark`; the branches it made since are closed.
  private mutating func forget(since mark: Mark) {
    recorder.forget(since: mark.recorded)
    notes.removeSubrange(mark.notes...)
    scopes.removeSubrange(mark.scopes...)
    checked.removeSubrange(mark.checked...)
    misses.removeSubrange(mark.misses...)
    conflicting.removeSubrange(mark.conflicting...)
  }

  /// Checks a branch of `scope` made below `branch` with the context given, and the scopes below
  /// it; a branch that cannot be made is a problem.
  private mutating func check(_ scope: any FeaturesScope.Type, below branch: Branch, cluster: String) async {
    func made<Scope: FeaturesScope>(_ scope: Scope.Type) -> Result<Features, any Error>? {
      guard let context = contexts.context(for: scope) else { return nil }
      return Result { try Features(adopting: branch.branch(scope, context: context, holdsParent: true, at: location)) }
    }
    switch made(scope) {
    case .success(let features): await check(features, parent: cluster)
    case .failure(let error as FeaturesScopeUndefined):
      recorder.record(FeaturesScopeUnchecked(scope, from: branch, undefined: error, at: location))
    case .failure(let error): recorder.record(error as? any DiagnosticError ?? UnexpectedValidationError(error))
    case nil: break  // reported where the scope is defined
    }
  }

  /// The first scope whose context a loader of `definition`'s subtree read since `mark`, without a
  /// branch of it on the path, that validation branches and from whose branches `definition`'s
  /// scope can be branched: the place the app branches that scope.
  private func inferredPlace(of definition: ScopeDefinition, since mark: Int)
    -> (binding: Binding, scope: any FeaturesScope.Type)?
  {
    guard let root = checked.first?.branch else { return nil }
    return misses[mark...].first { miss in
      contexts.hasContext(for: miss.scope)
        && FeaturesScopeContextUnavailable.definedBeside(miss.scope, definition.scope, in: root)
    }
  }

  /// Adds a note on the loader of `binding`.
  private mutating func note(_ binding: Binding, _ text: String) {
    let registration = binding.registration
    notes.append(
      .init(
        feature: String(describing: registration.feature), implementation: registration.implementation,
        location: binding.site, text: text))
  }

  /// Runs the loader of `binding` once in `branch`, turning what goes wrong into problems and notes.
  private mutating func checkLoader(of binding: Binding, in branch: Branch) async {
    // The placeholder members the loader called: it went on as each placeholder says.
    let called = Lock<[FeatureUnimplemented]>.make([])
    // What the loader reported, placeholder calls included: validation's to note, never a test
    // failure or a warning.
    let reported = Lock<[IssueReporting.Report]>.make([])
    let outcome: Result<Bool, any Error>
    do {
      let ran = try await FeatureUnimplemented.$calls.withValue(
        IssueReporting.Capture { call in called.withLock { $0.append(call) } }
      ) {
        try await IssueReporting.$capture.withValue(
          IssueReporting.Capture { report in reported.withLock { $0.append(report) } }
        ) {
          try await recorder.checking(binding) {
            try await Self.runLoaderOnce(of: binding, in: branch, at: binding.site)
          }
        }
      }
      outcome = .success(ran)
    } catch {
      outcome = .failure(error)
    }
    let registration = binding.registration
    func note(_ text: String) { self.note(binding, text) }
    switch outcome {
    case .success(false):
      note(
        "not run: its context is a value of type \(contextTypeName(registration.feature)), which validation cannot invent"
      )
    case .success(true):
      for call in called.withLock({ $0 }) { note("checked with the placeholder behaviour of \(call.member)") }
    case .failure(let error):
      let cause = (error as? FeatureLoadingFailed)?.cause ?? error
      if let unimplemented = cause as? FeatureUnimplemented {
        note("checked up to its call of \(unimplemented.member)")
      } else if let unavailable = cause as? FeaturesScopeContextUnavailable {
        recorder.record(unavailable)
        misses.append((binding, unavailable.scope))
      } else {
        recorder.record(error as? any DiagnosticError ?? UnexpectedValidationError(error))
      }
    }
    // Reports of the loader's own, each kept as a note: a placeholder call's is noted above.
    var ownReports = reported.withLock { $0 }
    for call in called.withLock({ $0 }) {
      if let index = ownReports.firstIndex(where: { $0.diagnostic == call.diagnostic }) { ownReports.remove(at: index) }
    }
    for report in ownReports {
      note(
        "reported \(report.severity == .warning ? "a warning" : "a failure") while checked: "
          + "\(report.diagnostic.kind): \(report.diagnostic.message)")
    }
  }

  /// Adds the graph cluster of `definition`.
  private mutating func cluster(_ definition: ScopeDefinition, parent: String?) {
    let id = "s\(scopes.count)"
    scopes.append(
      (definition, FeaturesGraph.Scope(id: id, path: definition.scopePath.map { scope in scope.name }, parent: parent)))
  }

  /// Adds the graph clusters of `definition` and the scopes below it, none of them checked: their
  /// registrations are drawn, without requests.
  private mutating func clusterUnchecked(_ definition: ScopeDefinition, parent: String) {
    cluster(definition, parent: parent)
    let id = scopes[scopes.count - 1].scope.id
    for child in definition.children.values.sorted(by: { $0.scope.name < $1.scope.name }) {
      clusterUnchecked(child, parent: id)
    }
  }

  /// The result: the recorder's problems, then the cycles its requests close; the graph.
  func finish() -> FeaturesValidation {
    let (requests, problems) = recorder.state.withLock { ($0.requests, $0.problems) }
    let cycles = findCycles(requests)
    return FeaturesValidation(
      problems: problems + cycles.map(\.error), notes: notes, graph: graph(requests, cycles: cycles.map(\.members)))
  }

  /// Every cycle of requests between loaders, once each, as the error a request along it throws.
  private func findCycles(_ requests: [ValidationRecorder.Request]) -> [(error: CircularDependency, members: [Binding])]
  {
    var edges: [ObjectIdentifier: [(to: Binding, site: SourceLocation)]] = [:]
    var order: [Binding] = []
    for request in requests {
      guard let to = request.to else { continue }
      if edges[ObjectIdentifier(request.from)] == nil { order.append(request.from) }
      edges[ObjectIdentifier(request.from), default: []].append((to, request.site))
    }
    var cycles: [(error: CircularDependency, members: [Binding])] = []
    var seen: Set<[ObjectIdentifier]> = []
    var finished: Set<ObjectIdentifier> = []
    // Depth first from each loader; a request back to a loader on the current path closes a cycle.
    func visit(_ binding: Binding, path: inout [(binding: Binding, site: SourceLocation)]) {
      if let start = path.firstIndex(where: { $0.binding === binding }) {
        let loop = Array(path[start...])
        let key = loop.map { ObjectIdentifier($0.binding) }
        let rotation = key.indices.min { key[$0].hashValue < key[$1].hashValue } ?? 0
        guard seen.insert(Array(key[rotation...] + key[..<rotation])).inserted else { return }
        cycles.append((cycleError(loop, closingAt: path.last!.site), loop.map(\.binding)))
        return
      }
      guard !finished.contains(ObjectIdentifier(binding)) else { return }
      for edge in edges[ObjectIdentifier(binding)] ?? [] {
        path.append((binding, edge.site))
        visit(edge.to, path: &path)
        path.removeLast()
      }
      finished.insert(ObjectIdentifier(binding))
    }
    for binding in order {
      var path: [(binding: Binding, site: SourceLocation)] = []
      visit(binding, path: &path)
    }
    return cycles
  }

  /// The error of `loop`: each loader with the site of the request that leads to the next, the
  /// last one's leading back to the first.
  private func cycleError(_ loop: [(binding: Binding, site: SourceLocation)], closingAt site: SourceLocation)
    -> CircularDependency
  {
    var frames: [LoadStep] = []
    var requestedAt = loop[0].binding.site
    for (binding, site) in loop {
      let branch = branches[ObjectIdentifier(binding)]
      frames.append(
        LoadStep(
          feature: binding.registration.feature, branch: branch.map(ObjectIdentifier.init) ?? ObjectIdentifier(binding),
          context: (), location: requestedAt))
      requestedAt = site
    }
    let closing = loop[0].binding
    let branch = branches[ObjectIdentifier(closing)]!  // every loader that requested was checked in one
    return CircularDependency(frames, closingWith: closing.registration.feature, in: branch, loopStart: 0, at: site)
  }

  /// The graph of every walked definition's registrations and every recorded request.
  private func graph(_ requests: [ValidationRecorder.Request], cycles: [[Binding]]) -> FeaturesGraph {
    var nodes: [FeaturesGraph.Node] = []
    var ids: [ObjectIdentifier: String] = [:]
    for (definition, scope) in scopes {
      for binding in definition.bindings {
        let registration = binding.registration
        let id = "n\(nodes.count)"
        ids[ObjectIdentifier(binding)] = id
        nodes.append(
          .init(
            id: id, feature: String(describing: registration.feature), kind: Features.Which.Kind(registration.lifetime),
            isAsync: registration.isAsync, runsOnMainActor: registration.runsOnMainActor,
            implementation: registration.implementation, location: binding.site,
            scope: scope.id, timeToLive: registration.lifetime.isCached ? registration.timeToLive : nil))
      }
    }
    var undefined: [String: String] = [:]
    var cycleEdges: Set<[ObjectIdentifier]> = []
    for members in cycles {
      for index in members.indices {
        cycleEdges.insert([ObjectIdentifier(members[index]), ObjectIdentifier(members[(index + 1) % members.count])])
      }
    }
    var edges: [FeaturesGraph.Edge] = []
    for request in requests {
      guard let from = ids[ObjectIdentifier(request.from)] else { continue }
      if let to = request.to, let target = ids[ObjectIdentifier(to)] {
        let inCycle = cycleEdges.contains([ObjectIdentifier(request.from), ObjectIdentifier(to)])
        edges.append(.init(from: from, to: target, location: request.site, problem: inCycle ? "cycle" : nil))
      } else if request.to == nil {
        let feature = String(describing: request.feature)
        let target =
          undefined[feature]
          ?? {
            let id = "u\(undefined.count)"
            undefined[feature] = id
            nodes.append(
              .init(
                id: id, feature: feature, kind: nil, isAsync: false, runsOnMainActor: false, implementation: nil,
                location: nil, scope: nil,
                timeToLive: nil)
            )
            return id
          }()
        edges.append(.init(from: from, to: target, location: request.site, problem: "undefined"))
      }
    }
    return FeaturesGraph(scopes: scopes.map(\.scope), nodes: nodes, edges: edges)
  }
}

/// A loader threw an error that is not a ``DiagnosticError``: validation reports it as one.
private struct UnexpectedValidationError: DiagnosticError {
  let diagnostic: Diagnostic

  init(_ error: any Error) {
    diagnostic = Diagnostic(describing: error)
  }
}

private func contextTypeName<F: Feature>(_ feature: F.Type) -> String {
  String(describing: F.Context.self)
}

extension ValidationWalk {
  /// Runs the loader of `binding`, one of `branch`'s scope's own, once, in `branch`: on the path like any
  /// load (so what it requests is reported along its path), without caching what it returns. What
  /// it returns is torn down at once if its registration has a teardown, so that validation leaves
  /// no connection or file open.
  ///
  /// - Returns: `false` when the loader takes a context validation cannot invent (a multiton's
  ///   key, a disposable's argument), so it did not run.
  fileprivate static func runLoaderOnce(
    of binding: Binding, in branch: Branch, at location: SourceLocation
  ) async throws -> Bool {
    try await runLoaderOnce(binding.registration.feature, in: branch, at: location)
  }

  private static func runLoaderOnce<F: Feature>(
    _ feature: F.Type, in branch: Branch, at location: SourceLocation
  ) async throws -> Bool {
    let context: F.Context
    if let none = NoContext() as? F.Context {
      context = none
    } else if let void = () as? F.Context {
      context = void
    } else {
      return false
    }
    guard let entry = branch.table.entry(for: FeatureTable.key(feature)) else { return false }
    let instance =
      if entry.isAsync {
        try await AsyncRequest(feature, context: context, in: branch, at: location).load(
          entry: entry.pointer.pointee, frame: nil)
      } else if entry.loadsOnMainActor, !MainQueue.isCurrent() {
        // The table's entries stay where they are: the main actor looks this one up again.
        try await MainActor.run {
          let entry = branch.table.entry(for: FeatureTable.key(feature))!
          return try branch.load(feature, context: context, entry: entry, at: location).instance
        }
      } else {
        try branch.load(feature, context: context, entry: entry, at: location).instance
      }
    // A registration of `F` with a teardown holds a `Teardown<F>`.
    if let teardown = entry.binding.object.registration.teardown as? Teardown<F> {
      try await teardown.run(instance)
    }
    return true
  }
}
