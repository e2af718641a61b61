import Arbor

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A test container: features in which every feature is its placeholder until the test patches it.
///
/// It is a plain ``/Arbor/Features`` value, so it goes wherever one goes: a loader under test receives it
/// through ``Arbor/Features/load(_:context:file:line:)-994eq``, and code that takes `Features` takes it
/// unchanged. It needs no registry: every feature resolves (to its placeholder, or to what the test
/// gave it) and any scope may be branched. Patch it with ``Arbor/Features/use(_:file:line:)``,
/// ``Arbor/Features/patch(_:with:file:line:)``, ``Arbor/Features/patch(_:file:line:_:)`` and
/// ``Arbor/Features/use(context:for:file:line:)``.
///
/// Calling a placeholder member that was not patched records a test failure naming the member
/// (`Unimplemented: Clock.now`) and where its placeholder is written.
///
/// Nothing in it is loaded by a registered loader, so a refresh of any feature renews nothing.
///
/// Patches live in the container, not in a global: each test makes its own container, so tests that
/// run in parallel never see each other's patches, and closures that escape the test (tasks,
/// callbacks) keep the patches of the container they captured. Branches of the container keep its
/// patches; a patch made through any branch applies to the whole container.
///
/// Named like a type, as ``/Arbor/FeaturesRoot(observer:clock:file:line:_:)`` is, because it reads as one at
/// the call site.
///
/// ```swift
/// let features = TestFeatures()
/// features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })
/// features.use(context: Session(user: "ann"), for: SessionScope.self)
/// let greeter: Greeter = try features.load(Greeter.live())
/// ```
///
/// - Parameters:
///   - file: Where the container is made; captured for you. An XCTest failure the container reports
///     is attributed to it, in the test.
///   - line: Where the container is made; captured for you.
/// - Returns: The root features of a new, empty test container, with the patches of the running
///   test's ``Testing/Trait/features(_:)`` traits applied.
public func TestFeatures(file: StaticString = #fileID, line: UInt = #line) -> Features {
  TestReporter.install(at: SourceLocation(fileID: file, line: line))
  let features = Features(Branch(root: emptyRoot, overrides: TestOverrides(resolvesPlaceholders: true)))
  TestFeaturesTrait.applyPatches(to: features)
  return features
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A test copy of a real tree, for integration tests: the same registrations, with the test's patches
/// on top.
///
/// The copy has its own caches and its own patches, so patching it never touches `features` or any
/// other copy: parallel tests may each copy the same root. What is not patched loads with the tree's
/// own loaders, and a feature the tree does not register is still ``/Arbor/FeatureUndefined``. A patched
/// feature is its placeholder plus the patches (its unpatched members report); to keep a real
/// implementation, replace the whole feature with ``Arbor/Features/use(_:file:line:)`` instead.
///
/// `features` may be a branch: the copy then has a copy of each branch on its path, with the same
/// contexts and the property values set on it, and is returned at the same place. Property sets on
/// the copy never reach the original, nor the original's later sets the copy. When `features` is itself a test container, the copy
/// starts with its patches.
///
/// Instances with a time-to-live age on the tree's clock: give the tree a ``TestClock``
/// (`FeaturesRoot(clock: clock)`), or the copy one of its own with
/// ``TestFeatures(_:clock:file:line:)``, to expire them when the test advances it.
/// ``/Arbor/Features/refresh(_:file:line:)-7kuel`` renews the copy's instances, never the tree's; a
/// patched feature renews nothing.
///
/// ```swift
/// let features = TestFeatures(root)
/// features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })
/// let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
/// let greeter: Greeter = try session.instance()  // loaded by the tree's Greeter.live()
/// ```
///
/// - Parameters:
///   - features: The tree (or a branch of it) to copy.
///   - file: Where the copy is made; captured for you.
///   - line: Where the copy is made; captured for you.
/// - Returns: The copy, at the same branch as `features`.
public func TestFeatures(_ features: Features, file: StaticString = #fileID, line: UInt = #line) -> Features {
  copy(features, at: SourceLocation(fileID: file, line: line), definitions: { $0 })
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A test copy of a real tree whose instances age on a clock of the test's: the copy of
/// ``TestFeatures(_:file:line:)``, with instances that have a time-to-live expiring when `clock` says.
///
/// The tree's own clock, and its instances, are untouched: use it to test the time-to-live of a tree
/// that an app builds with the default `ContinuousClock`. A ``TestClock`` moves only when the test
/// advances it.
///
/// ```swift
/// let clock = TestClock()
/// let features = TestFeatures(AppTree.root(), clock: clock)
/// let first: AuthToken = try features.instance()
/// clock.advance(by: .seconds(3600))
/// let renewed: AuthToken = try features.instance()  // expired: loaded anew
/// ```
///
/// - Parameters:
///   - features: The tree (or a branch of it) to copy.
///   - clock: What the copy's instances with a time-to-live age on, from the moment of the copy.
///   - file: Where the copy is made; captured for you.
///   - line: Where the copy is made; captured for you.
/// - Returns: The copy, at the same branch as `features`.
public func TestFeatures(
  _ features: Features, clock: some Clock<Duration>, file: StaticString = #fileID, line: UInt = #line
) -> Features {
  copy(features, at: SourceLocation(fileID: file, line: line)) { ScopeDefinition.reclocked($0, clock: clock) }
}

/// Copies the branches on the path to `features`, each made with the definition `definitions` gives
/// for the original's (the path's, root first).
private func copy(
  _ features: Features, at location: SourceLocation, definitions: ([ScopeDefinition]) -> [ScopeDefinition]
) -> Features {
  TestReporter.install(at: location)
  let copy: Branch
  do {
    // Held while the path is read: a branch below a tether reaches its ancestors only so.
    copy = try features.withBranch(at: location) { original in
      let overrides =
        (original.overrides as? TestOverrides)?.copy() ?? TestOverrides(resolvesPlaceholders: false)
      var path: [Branch] = []
      var step: Branch? = original
      while let current = step {
        path.append(current)
        step = current.parent
      }
      var copy: Branch?
      let originals = Array(path.reversed())
      for (branch, definition) in zip(originals, definitions(originals.map(\.definition))) {
        copy = Branch(definition: definition, parent: copy, path: branch.path, overrides: overrides)
        copy!.copyProperties(from: branch)
      }
      overrides.closesCopiedAncestors(from: copy!)  // the path holds at least `original`
      return copy!
    }
  } catch {
    IssueReporting.report(Diagnostic(describing: error), severity: .failure)
    return TestFeatures()
  }
  let copied = Features(copy)
  TestFeaturesTrait.applyPatches(to: copied)
  return copied
}

/// The definition every ``TestFeatures(file:line:)`` container shares: no registrations, no scopes.
private let emptyRoot = RootDefinition.make { _ in }
