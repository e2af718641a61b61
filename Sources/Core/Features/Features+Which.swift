extension Features {
  /// Which implementation serves `feature` in this branch, where it was registered, and where its
  /// instances live; or, when none does, the diagnostic a request would fail with.
  ///
  /// It answers "what will `instance()` give me here?" without loading anything: no loader runs and
  /// nothing is cached. Lookup walks up, so the answer is the registration in the nearest scope on
  /// this branch's path, from this branch up to the root. A cacheable registered in an ancestor's
  /// scope lives in that ancestor's branch, shared with every branch below it and blind to their
  /// contexts; ``Which/Implementation/isCachedInAncestor`` says so, and
  /// ``Which/Implementation/isAsync`` whether only `try await` runs its loader. In a test container,
  /// a feature nobody registered is its placeholder; members patched in the container are not shown.
  ///
  /// For a cacheable with a time-to-live, it says how long its instances serve
  /// (``Which/Implementation/timeToLive``), and, once one is cached, when it was loaded and when it
  /// expires on the root's clock (``Which/Implementation/instance``).
  ///
  /// `print` shows it as a tree:
  ///
  /// ```swift
  /// print(session.which(Greeter.self))
  /// // Greeter is served by Greeter.live()
  /// // ├─ scope: Root › SessionScope(Session(user: "ann"))
  /// // ├─ registered at: App/Main.swift:30 in SessionScope
  /// // ├─ kind: cacheable, one instance per branch
  /// // └─ cached in: Root › SessionScope(Session(user: "ann")), this branch
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature to look up.
  ///   - file: Where it is asked; captured for you, and shown as the request site when none serves it.
  ///   - line: Where it is asked; captured for you.
  /// - Returns: The implementation that serves the feature here, or the diagnostic of why none does.
  public func which<F: Feature>(_ feature: F.Type, file: StaticString = #fileID, line: UInt = #line) -> Which {
    let location = SourceLocation(fileID: file, line: line)
    let name = String(describing: feature)
    do {
      // Held for the look-up: it reads the path, which a branch below a tether reaches only so.
      return try withOpenBranch(.resolving(feature), at: location) { branch in
        Self.which(feature, named: name, in: branch, at: location)
      }
    } catch {
      return Which(feature: name, scope: [], implementation: nil, diagnostic: Diagnostic(describing: error))
    }
  }

  /// ``which(_:file:line:)`` in a branch kept alive for it.
  private static func which<F: Feature>(
    _ feature: F.Type, named name: String, in branch: Branch, at location: SourceLocation
  ) -> Which {
    let scope = branch.path.diagnosticSteps
    guard let entry = branch.definition.table.entry(for: FeatureTable.key(feature)) else {
      if let overrides = branch.overrides, overrides.resolvesPlaceholders {
        let placeholder = Which.Implementation(
          name: "\(name).placeholder", kind: .placeholder, isAsync: false, runsOnMainActor: false, location: nil,
          scope: nil, cachedIn: nil,
          isCachedInAncestor: false, timeToLive: nil, instance: nil)
        return Which(feature: name, scope: scope, implementation: placeholder, diagnostic: nil)
      }
      return Which(
        feature: name, scope: scope, implementation: nil,
        diagnostic: FeatureUndefined(feature, in: branch, at: location).diagnostic)
    }
    let binding = entry.binding.object
    if entry.kind == .conflict {
      return Which(
        feature: name, scope: scope, implementation: nil,
        diagnostic: FeatureRegistrationConflict(binding, in: branch, at: location).diagnostic)
    }
    let registration = binding.registration
    let kind = Which.Kind(registration.lifetime)
    let isCacheable = registration.lifetime.isCached
    let owner = branch.ancestor(entry.depth)
    // A multiton holds an instance per context, which `which` is not asked about.
    let age = registration.lifetime == .cacheable ? heldAge(of: feature, in: owner) : nil
    let implementation = Which.Implementation(
      name: registration.implementation, kind: kind, isAsync: registration.isAsync,
      runsOnMainActor: registration.runsOnMainActor, location: binding.site,
      scope: binding.scope.name, cachedIn: isCacheable ? owner.path.diagnosticSteps : nil,
      isCachedInAncestor: isCacheable && entry.depth > 0, timeToLive: isCacheable ? registration.timeToLive : nil,
      instance: age.map { Which.InstanceAge(loadedAt: $0.loadedAt, expiresAt: $0.expiresAt, now: $0.now) })
    return Which(feature: name, scope: scope, implementation: implementation, diagnostic: nil)
  }

  /// What serves a feature in one branch: the answer of ``Features/which(_:file:line:)``.
  ///
  /// Exactly one of ``implementation`` and ``diagnostic`` is set. It renders as a diagnostic does:
  /// `print` shows the tree of ``renderedTree(style:)``, ``summary(style:)`` is one line and
  /// ``json(pretty:)`` is JSON.
  ///
  /// ```swift
  /// let which = session.which(Greeter.self)
  /// if let implementation = which.implementation {
  ///   print(implementation.name, implementation.location!)  // "Greeter.live() App/Main.swift:30"
  /// }
  /// ```
  public struct Which: Sendable, Hashable, CustomStringConvertible {
    /// The feature's name: `Greeter`.
    public let feature: String
    /// The branch that was asked, root first, each step with its context; empty when its features
    /// were released.
    public let scope: [Diagnostic.ScopeStep]
    /// The implementation that serves the feature here, or `nil` when none does.
    public let implementation: Implementation?
    /// Why no implementation serves the feature here (the error a request would throw), or `nil`
    /// when one does.
    public let diagnostic: Diagnostic?

    /// How instances of a feature live.
    public enum Kind: Sendable, Hashable {
      /// One value for the whole tree, registered at the root.
      case `static`
      /// Loaded for every request, in the requesting branch.
      case disposable
      /// Loaded once in the branch it is cached in, then shared by every request there and below.
      case cacheable
      /// A cacheable with a context: one instance per context value in the branch it is cached in.
      case cacheablePerContext
      /// Nothing is registered, and the test container resolves the feature's placeholder.
      case placeholder
    }

    /// The implementation that serves a feature: its name, where it was registered, its lifetime.
    public struct Implementation: Sendable, Hashable {
      /// The implementation's name: `Greeter.live()`, `Clock value`.
      public let name: String
      /// How its instances live.
      public let kind: Kind
      /// Whether its loader is `async`: only `try await features.instance()` runs it (a cacheable
      /// loaded that way is then served to synchronous requests too).
      public let isAsync: Bool
      /// Whether its loader and teardown run on the main actor: a synchronous request made off the
      /// main actor cannot run it (see ``FeatureRequiresMainActor``).
      public let runsOnMainActor: Bool
      /// Where it was registered (`registry.use(...)`); `nil` for a placeholder.
      public let location: SourceLocation?
      /// The scope whose registry holds it; `nil` for a placeholder.
      public let scope: String?
      /// The branch whose cache holds its instances (cacheables only), root first.
      public let cachedIn: [Diagnostic.ScopeStep]?
      /// Whether it is a cacheable that lives in an ancestor of the asked branch: one instance
      /// shared with the ancestor's other branches, whose loader cannot see this branch's contexts.
      public let isCachedInAncestor: Bool
      /// How long an instance serves before the first request that finds it older renews it, with
      /// the instances built from it: the `timeToLive:` of a cacheable's loader; `nil` when it has
      /// none (or is not a cacheable).
      public let timeToLive: Duration?
      /// When the instance cached for the asked branch was loaded and when it expires; `nil` when
      /// none is cached, for a cacheable with a context (one instance per context), or when its age
      /// is not recorded: see ``InstanceAge``.
      public let instance: InstanceAge?
    }

    /// When a cached instance was loaded and when it expires, on the root's clock: durations since
    /// the root was made, measured on the clock ``FeaturesRoot(observer:clock:file:line:_:)`` was
    /// given.
    ///
    /// Ages are recorded for the instances of a cacheable with a time-to-live, and for those of any
    /// cacheable loaded again after a ``Features/refresh(_:context:file:line:)``; an instance that has
    /// served since its first load without either has none.
    ///
    /// ```swift
    /// if let age = session.which(AuthToken.self).implementation?.instance {
    ///   print(age.age, age.expiresIn!)  // 30.0 seconds 30.0 seconds
    /// }
    /// ```
    public struct InstanceAge: Sendable, Hashable {
      /// When the instance was loaded.
      public let loadedAt: Duration
      /// When it expires: its load plus the time-to-live; `nil` without one.
      public let expiresAt: Duration?
      /// When ``Features/which(_:file:line:)->Features.Which`` was asked.
      public let now: Duration

      /// How long ago the instance was loaded.
      public var age: Duration { now - loadedAt }

      /// How long until it expires: zero or less once it has (the next request for it renews it);
      /// `nil` without a time-to-live.
      public var expiresIn: Duration? { expiresAt.map { $0 - now } }
    }

    /// The tree `print` shows, drawn as ``Diagnostic/renderedTree(style:)`` draws a diagnostic's.
    ///
    /// ```
    /// Greeter is served by Greeter.live()
    /// ├─ scope: Root › SessionScope(Session(user: "ann"))
    /// ├─ registered at: App/Main.swift:12 in Root
    /// ├─ kind: cacheable, one instance per branch
    /// └─ cached in: Root, an ancestor: shared with every branch below it,
    ///               and its loader cannot see the contexts of this branch
    /// ```
    ///
    /// When none serves the feature, the diagnostic hangs below as `because`.
    ///
    /// - Parameter style: Unicode box drawing (the default) or ASCII.
    /// - Returns: The rendered tree, lines separated by `\n`, without a final newline.
    public func renderedTree(style: Diagnostic.Style = .unicode) -> String {
      renderTree(style: style)
    }

    /// The tree of ``renderedTree(style:)`` with Unicode box drawing.
    public var description: String { renderedTree() }

    /// One line: the implementation, its kind and where it was registered; or, when none serves the
    /// feature, the diagnostic's ``Diagnostic/summary(style:)``.
    ///
    /// ```
    /// Greeter is served by Greeter.live() (cacheable), registered at App/Main.swift:12 in Root
    /// Mailer is not served here: FeatureUndefined: no implementation of Mailer (App/Main.swift:44)
    /// ```
    ///
    /// - Parameter style: Unicode (the default) or ASCII arrows, in the diagnostic's summary.
    /// - Returns: The summary line.
    public func summary(style: Diagnostic.Style = .unicode) -> String {
      guard let implementation else {
        return "\(feature) is not served here" + (diagnostic.map { ": " + $0.summary(style: style) } ?? "")
      }
      var line =
        "\(feature) is served by \(implementation.name) (\(implementation.kind.name)"
        + (implementation.isAsync ? ", async" : "")
        + (implementation.runsOnMainActor ? ", main actor" : "")
        + (implementation.timeToLive.map { ", time-to-live \($0.rendered))" } ?? ")")
      if let location = implementation.location { line += ", registered at \(location)" }
      if let scope = implementation.scope { line += " in \(scope)" }
      return line
    }

    /// The answer as a JSON object with stable keys, for tools, written as ``Diagnostic/json(pretty:)``
    /// writes a diagnostic.
    ///
    /// Keys always appear in this order, absent facts as `null`: `feature`, `scope`
    /// (`[{"name", "context"}]`), `implementation` (`{"name", "kind", "isAsync", "runsOnMainActor", "location", "scope",
    /// "cachedIn", "isCachedInAncestor", "timeToLiveMilliseconds", "instance"}`), `diagnostic` (a
    /// diagnostic, with the schema of ``Diagnostic/json(pretty:)``). `kind` is `static`,
    /// `disposable`, `cacheable`, `cacheablePerContext` or `placeholder`; `instance` is
    /// `{"loadedAtMilliseconds", "expiresAtMilliseconds", "ageMilliseconds", "expiresInMilliseconds"}`
    /// (see ``InstanceAge``), whole milliseconds on the root's clock.
    /// `Sources/Core/Arbor.docc/Diagnostics.md` has the full schema and an example.
    ///
    /// ```swift
    /// let json = session.which(Greeter.self).json()
    /// ```
    ///
    /// - Parameter pretty: Indent with two spaces, one member a line (`false` gives one line).
    /// - Returns: The JSON text.
    public func json(pretty: Bool = true) -> String {
      renderJSON(pretty: pretty)
    }

    /// The answer as the root of a text tree: the implementation's facts, or the diagnostic below.
    package func treeNode(style: Diagnostic.Style) -> TreeNode {
      var facts: [(label: String, value: String)] = []
      if !scope.isEmpty { facts.append(("scope", Diagnostic.render(scope: scope, style: style))) }
      guard let implementation else {
        var children: [(label: String, node: TreeNode)] = []
        if var diagnostic {
          if diagnostic.scope == scope { diagnostic.scope = [] }  // shown once, above
          children.append(("because", diagnostic.treeNode(style: style)))
        }
        return TreeNode(headline: "\(feature) is not served here", facts: facts, children: children)
      }
      if let location = implementation.location {
        facts.append(("registered at", "\(location)" + (implementation.scope.map { " in \($0)" } ?? "")))
      }
      facts.append(
        (
          "kind",
          implementation.kind.name + (implementation.isAsync ? " with an async loader" : "")
            + (implementation.runsOnMainActor ? " on the main actor" : "") + ", "
            + implementation.kind.lifetime
        ))
      if let timeToLive = implementation.timeToLive {
        facts.append(("time-to-live", timeToLive.rendered))
      }
      if let cachedIn = implementation.cachedIn {
        let path = Diagnostic.render(scope: cachedIn, style: style)
        facts.append(
          (
            "cached in",
            implementation.isCachedInAncestor
              ? path + ", an ancestor: shared with every branch below it,"
                + "\nand its loader cannot see the contexts of this branch"
              : path + ", this branch"
          ))
      }
      if let instance = implementation.instance { facts.append(("instance", instance.rendered)) }
      return TreeNode(headline: "\(feature) is served by \(implementation.name)", facts: facts)
    }
  }
}

extension Features.Which.InstanceAge {
  /// `loaded 30 s ago, expires in 30 s`; once expired, `loaded 90 s ago, expired 30 s ago: the next
  /// request renews it`.
  var rendered: String {
    let loaded = "loaded \(age.rendered) ago"
    guard let expiresIn else { return loaded }
    if expiresIn > .zero { return loaded + ", expires in \(expiresIn.rendered)" }
    return loaded + ", expired \(expiresIn.rendered) ago: the next request renews it"
  }
}

extension Features.Which.Kind {
  /// The kind a registration of `lifetime` reports.
  init(_ lifetime: Lifetime) {
    switch lifetime {
    case .static: self = .static
    case .disposable: self = .disposable
    case .cacheable: self = .cacheable
    case .cacheablePerContext: self = .cacheablePerContext
    }
  }

  /// The registration's lifetime; `nil` for a placeholder.
  private var registeredLifetime: Lifetime? {
    switch self {
    case .static: .static
    case .disposable: .disposable
    case .cacheable: .cacheable
    case .cacheablePerContext: .cacheablePerContext
    case .placeholder: nil
    }
  }

  /// `cacheable`, `static`, ...: the word the renderings use.
  var name: String { registeredLifetime?.name ?? "placeholder" }

  /// How instances live, in a few words.
  var lifetime: String {
    registeredLifetime?.summary ?? "nothing is registered, so this test container resolves the placeholder"
  }
}

/// When the instance of `feature`, a cacheable without a context, that `branch` holds under its
/// lock was loaded and when it expires, with the time now, all on the tree's clock. `nil` when the
/// branch holds none (an instance cached in place, of a feature without a time-to-live never
/// renewed, has no recorded age).
private func heldAge(of feature: any Feature.Type, in branch: Branch)
  -> (loadedAt: Duration, expiresAt: Duration?, now: Duration)?
{
  let key = LoadKey(feature: ObjectIdentifier(feature), context: nil)
  guard
    let held = branch.existingState?.withLock({ state in
      state.held.instances[key].map { (loadedAt: $0.loadedAt, expiresAt: $0.expiresAt) }
    })
  else { return nil }
  return (held.loadedAt, held.expiresAt, branch.definition.renewals.now())
}
