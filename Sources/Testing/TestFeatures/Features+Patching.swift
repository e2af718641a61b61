import Arbor

extension Features {
  /// Replaces a feature in this test container: every request for it gets `instance`.
  ///
  /// Works for every kind: a static feature, a disposable (whatever its context) and a cacheable (for
  /// every context; see ``use(_:context:file:line:)`` for one context). It replaces the patches made
  /// to the feature so far; later patches apply on top of `instance`.
  ///
  /// ```swift
  /// features.use(Clock(now: { 42 }))
  /// ```
  ///
  /// - Parameters:
  ///   - instance: What requests for the feature get.
  ///   - file: Where it is patched; captured for you.
  ///   - line: Where it is patched; captured for you.
  public func use<F: Feature>(_ instance: F, file: StaticString = #fileID, line: UInt = #line) {
    testOverrides(for: "replace \(F.self)", file: file, line: line)?.update(F.self) { override in
      override = FeatureOverride(instance: instance)
    }
  }

  /// Replaces the instance of a cacheable feature for one context value.
  ///
  /// Requests with another context get what they would get without it. Patches of the feature apply
  /// on top, whenever they were made.
  ///
  /// ```swift
  /// features.use(Account(id: 7, balance: { 100 }), context: 7)
  /// ```
  ///
  /// - Parameters:
  ///   - instance: What requests for the feature with `context` get.
  ///   - context: The context value it replaces the instance of.
  ///   - file: Where it is patched; captured for you.
  ///   - line: Where it is patched; captured for you.
  public func use<F: CacheableFeature>(
    _ instance: F, context: F.Context, file: StaticString = #fileID, line: UInt = #line
  ) {
    testOverrides(for: "replace \(F.self) for context \(context)", file: file, line: line)?.update(F.self) { override in
      override.contextual.append((matches: { $0 == context }, instance: instance))
    }
  }

  /// Patches one member of a feature in this test container.
  ///
  /// The feature resolves to its placeholder (or to what ``use(_:file:line:)`` gave it) with
  /// `member` replaced, so calling any other member still reports it as unimplemented. Patches apply
  /// in the order they are made and only to requests made after them.
  ///
  /// ```swift
  /// features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })
  /// ```
  ///
  /// - Parameters:
  ///   - member: The member, as a key path: `\Printer.print`.
  ///   - value: Its new value.
  ///   - file: Where it is patched; captured for you.
  ///   - line: Where it is patched; captured for you.
  public func patch<F: Feature, Member: Sendable>(
    _ member: any WritableKeyPath<F, Member> & Sendable, with value: Member,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    testOverrides(for: "patch \(F.self)", file: file, line: line)?.update(F.self) { override in
      override.patches.append { $0[keyPath: member] = value }
    }
  }

  /// Patches a feature in this test container with a closure that changes any of its members.
  ///
  /// ```swift
  /// features.patch(Clock.self) { $0.now = { 42 } }
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature to patch.
  ///   - file: Where it is patched; captured for you.
  ///   - line: Where it is patched; captured for you.
  ///   - update: Changes the feature; it runs for every request made after the patch.
  public func patch<F: Feature>(
    _ feature: F.Type, file: StaticString = #fileID, line: UInt = #line,
    _ update: @escaping @Sendable (inout F) -> Void
  ) {
    testOverrides(for: "patch \(F.self)", file: file, line: line)?.update(F.self) { override in
      override.patches.append(update)
    }
  }

  /// Gives this test container the context of a scope that no branch on its path carries.
  ///
  /// A loader under test that reads `context(for: scope)` gets `context` without the test making a
  /// branch of `scope`. A branch of `scope` still carries its own context, which wins.
  ///
  /// ```swift
  /// features.use(context: Session(user: "ann"), for: SessionScope.self)
  /// ```
  ///
  /// - Parameters:
  ///   - context: The scope's context.
  ///   - scope: The scope.
  ///   - file: Where it is set; captured for you.
  ///   - line: Where it is set; captured for you.
  public func use<Scope: FeaturesScope>(
    context: Scope.Context, for scope: Scope.Type, file: StaticString = #fileID, line: UInt = #line
  ) {
    testOverrides(for: "set the context of \(Scope.name)", file: file, line: line)?
      .use(context: context, for: scope)
  }

  /// The overrides of this test container, or `nil` after reporting that these features are not one.
  ///
  /// - Parameter change: What the caller would do, for the report: `patch Clock`.
  func testOverrides(for change: @autoclosure () -> String, file: StaticString, line: UInt) -> TestOverrides? {
    let location = SourceLocation(fileID: file, line: line)
    TestReporter.install(at: location)
    do {
      if let overrides = try branch(at: location).overrides as? TestOverrides { return overrides }
      IssueReporting.report(TestFeaturesMisuse.notATestContainer(change(), at: location).diagnostic, severity: .failure)
    } catch {
      IssueReporting.report(Diagnostic(describing: error), severity: .failure)
    }
    return nil
  }
}
