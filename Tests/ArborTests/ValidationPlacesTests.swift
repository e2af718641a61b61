import Arbor
import ArborDemoFeatures
import Synchronization
import Testing

/// A request scope defined at the root, beside the session scope, and branched from session
/// branches, whose loader reads the session's context: validated where the app branches it.
@Suite struct ValidationPlacesTests {
  @Test func aScopeWhoseLoaderReadsASessionIsCheckedBelowSessionsAndSaysSo() async throws {
    let seen = Lock<[String]>.make([])
    let validation = await RequestTree.beside(seen: seen).validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
      contexts.use(Page(id: 7), for: PageScope.self)
    }
    #expect(validation.problems.map(\.description) == [])
    #expect(
      validation.notes.map(\.text) == [
        "reads the context of SessionScope, so PageScope was checked below branches of SessionScope, not of Root;"
          + " to check it elsewhere, declare each place the app branches it from:"
          + " contexts.branch(PageScope.self, from: ...)"
      ])
    // The loader ran where a request of the app loads it: below a session.
    #expect(seen.withLock { $0 }.last == "check, request 7")
    #expect(
      validation.graph.scopes.map(\.path) == [
        ["Root"], ["Root", "SessionScope"], ["Root", "SessionScope", "PageScope"],
      ])
  }

  @Test func aDeclaredPlaceIsWhereTheScopeIsCheckedWithoutANote() async throws {
    let seen = Lock<[String]>.make([])
    let validation = await RequestTree.beside(seen: seen).validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
      contexts.use(Page(id: 7), for: PageScope.self)
      contexts.branch(PageScope.self, from: SessionScope.self)
    }
    #expect(validation.problems.map(\.description) == [])
    #expect(validation.notes.isEmpty)
    #expect(seen.withLock { $0 } == ["check, request 7"])  // checked there only, once
  }

  @Test func aScopeIsCheckedAtEachPlaceDeclared() async throws {
    let seen = Lock<[String]>.make([])
    let validation = await RequestTree.beside(readsSessionIfPresent: true, seen: seen).validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
      contexts.use(Page(id: 7), for: PageScope.self)
      contexts.branch(PageScope.self, from: RootFeaturesScope.self)
      contexts.branch(PageScope.self, from: SessionScope.self)
    }
    #expect(validation.problems.map(\.description) == [])
    #expect(seen.withLock { $0 } == ["no session, request 7", "check, request 7"])
    #expect(
      validation.graph.scopes.map(\.path) == [
        ["Root"], ["Root", "SessionScope"], ["Root", "PageScope"], ["Root", "SessionScope", "PageScope"],
      ])
  }

  @Test func aPlaceWhereTheLoaderCannotSeeTheSessionSaysWhyThereAndFixesThatHold() async throws {
    func validate(_ tree: Features, fromRoot: Bool) async -> FeaturesValidation {
      await tree.validate { contexts in
        contexts.use(Session(user: "check"), for: SessionScope.self)
        contexts.use(Page(id: 7), for: PageScope.self)
        if fromRoot { contexts.branch(PageScope.self, from: RootFeaturesScope.self) }
        contexts.branch(PageScope.self, from: SessionScope.self)
      }
    }
    let validation = await validate(RequestTree.beside(), fromRoot: true)
    #expect(validation.problems.count == 1)
    #expect(
      validation.problems.first?.diagnostic.renderedTree() == RequestTree.unavailableBelowRoot(page: 7) + """

        └─ fix: read it with try features.context(ifPresent: SessionScope.self), which is nil where no SessionScope branch is on the path
                or if the app never branches PageScope from branches of Root, remove contexts.branch(PageScope.self, from: RootFeaturesScope.self)
        """)
    // Each fix, applied: the problem is gone, and none came in its place.
    #expect(await validate(RequestTree.beside(readsSessionIfPresent: true), fromRoot: true).problems.isEmpty)
    #expect(await validate(RequestTree.beside(), fromRoot: false).problems.isEmpty)
  }

  @Test func withoutASessionContextTheFixesSayHowToCheckItWhereTheAppBranchesIt() async throws {
    func validate(_ tree: Features, session: Bool) async -> [String] {
      await tree.validate { contexts in
        if session { contexts.use(Session(user: "check"), for: SessionScope.self) }
        contexts.use(Page(id: 7), for: PageScope.self)
      }.problems.map { "\($0.diagnostic.kind): \($0.diagnostic.message)" }
    }
    let validation = await RequestTree.beside().validate { $0.use(Page(id: 7), for: PageScope.self) }
    let unchecked = "FeaturesScopeUnchecked: SessionScope was not checked: no context to branch it with"
    #expect(
      validation.problems.map { "\($0.diagnostic.kind): \($0.diagnostic.message)" } == [
        "FeaturesScopeContextUnavailable: no context for SessionScope", unchecked,
      ])
    #expect(
      validation.problems.first?.diagnostic.renderedTree() == RequestTree.unavailableBelowRoot(page: 7) + """

        └─ fix: move defineScope(PageScope.self) into defineScope(SessionScope.self) so that its branches are made from branches of SessionScope
                or if the app branches PageScope from branches of SessionScope, give validation a context for SessionScope: contexts.use(<a Session>, for: SessionScope.self)
                or read it with try features.context(ifPresent: SessionScope.self), which is nil where no SessionScope branch is on the path
        """)
    // Each fix, applied: the problem is gone, and none came in its place.
    #expect(await validate(RequestTree.nested(), session: false) == [unchecked])
    #expect(await validate(RequestTree.beside(), session: true) == [])
    #expect(await validate(RequestTree.beside(readsSessionIfPresent: true), session: false) == [unchecked])
    // With the session's context, the first fix is sound where the app branches it too.
    #expect(await validate(RequestTree.nested(), session: true) == [])
  }

  @Test func theTreeAloneSuggestsNestingTheScopeOrReadingTheContextIfPresentNeverTheMirror() async throws {
    let request = try RequestTree.beside().branch(PageScope.self, context: Page(id: 1))
    var thrown: (any Error)?
    do { _ = try await request.instance(of: RequestLog.self) } catch { thrown = error }
    let error = try #require((thrown as? FeatureLoadingFailed)?.cause ?? thrown)
    let rendered = (error as? FeaturesScopeContextUnavailable)?.diagnostic.renderedTree()
    #expect(
      rendered == RequestTree.unavailableBelowRoot(page: 1) + """

        └─ fix: move defineScope(PageScope.self) into defineScope(SessionScope.self) so that its branches are made from branches of SessionScope
                or read it with try features.context(ifPresent: SessionScope.self), which is nil where no SessionScope branch is on the path
        """)
    // The first fix, applied: a request branched below a session loads.
    let session = try RequestTree.nested().branch(SessionScope.self, context: Session(user: "ann"))
    let log = try await session.branch(PageScope.self, context: Page(id: 1)).instance(of: RequestLog.self)
    #expect(log.line == "ann, request 1")
  }

  @Test func aRootCacheableReadingASessionIsToldToMoveIntoTheSessionAndThatHolds() async throws {
    let validation = await RequestTree.rootReader(inSession: false).validate {
      $0.use(Session(user: "check"), for: SessionScope.self)
    }
    #expect(
      validation.problems.first?.diagnostic.fix
        == "register RequestLog in defineScope(SessionScope.self) so it loads in branches of SessionScope")
    let fixed = await RequestTree.rootReader(inSession: true).validate {
      $0.use(Session(user: "check"), for: SessionScope.self)
    }
    #expect(validation.problems.count == 1)
    #expect(fixed.problems.isEmpty)
  }

  @Test func aNestedScopeReadingTheContextOfAScopeElsewhereIsNeverToldToMoveAwayFromItsParent() async throws {
    func tree(ifPresent: Bool) -> Features {
      FeaturesRoot { registry in
        registry.defineScope(TenantScope.self) { _ in }
        registry.defineScope(SessionScope.self) { registry in
          registry.defineScope(PageScope.self) { registry in
            registry.use(
              .cacheable { features in
                let tenant =
                  try ifPresent
                  ? features.context(ifPresent: TenantScope.self) : features.context(for: TenantScope.self)
                return RequestLog(
                  line: "\(try features.context(for: SessionScope.self).user) of \(tenant ?? "no tenant")")
              })
          }
        }
      }
    }
    func validate(_ tree: Features, tenant: Bool) async -> FeaturesValidation {
      await tree.validate { contexts in
        contexts.use(Session(user: "check"), for: SessionScope.self)
        contexts.use(Page(id: 7), for: PageScope.self)
        if tenant { contexts.use("acme", for: TenantScope.self) }
      }
    }
    let validation = await validate(tree(ifPresent: false), tenant: false)
    // Moving PageScope into TenantScope would lose the session: the fix left is the loader's.
    #expect(
      validation.problems.map { $0.diagnostic.fix } == [
        "read it with try features.context(ifPresent: TenantScope.self), which is nil where no TenantScope branch is on the path",
        "give one: contexts.use(<a String>, for: TenantScope.self)",
      ])
    #expect(
      await validate(tree(ifPresent: true), tenant: false).problems.map(\.diagnostic.kind) == [
        "FeaturesScopeUnchecked"
      ])
    // Given the tenant's context, the session scope, whose subtree reads it, is checked below tenants.
    let below = await validate(tree(ifPresent: false), tenant: true)
    #expect(below.problems.isEmpty)
    #expect(
      below.notes.map(\.text).first?.hasPrefix("reads the context of TenantScope, so SessionScope was checked") == true)
    #expect(below.graph.scopes.last?.path == ["Root", "TenantScope", "SessionScope", "PageScope"])
  }

  @Test func aConflictInAScopeCheckedInTwoPlacesIsReportedOnce() async throws {
    let root = IssueReporting.capturingReports {  // the conflict is also reported as the root is built
      FeaturesRoot { registry in
        registry.defineScope(SessionScope.self) { _ in }
        registry.defineScope(PageScope.self) { registry in
          registry.use(.cacheable { _ in RequestLog(line: "first") })
          registry.use(.cacheable { _ in RequestLog(line: "second") })
        }
      }
    }.result
    let validation = await root.validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
      contexts.use(Page(id: 7), for: PageScope.self)
      contexts.branch(PageScope.self, from: RootFeaturesScope.self)
      contexts.branch(PageScope.self, from: SessionScope.self)
    }
    #expect(validation.problems.map(\.diagnostic.kind) == ["FeatureRegistrationConflict"])
  }

  @Test func aPlaceWithoutBranchesOrFromWhereTheScopeCannotBeBranchedIsAProblem() async throws {
    let line = #line + 1
    let validation = await RequestTree.nested().validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
      contexts.use(Page(id: 7), for: PageScope.self)
      contexts.branch(PageScope.self, from: JobScope.self)
      contexts.branch(PageScope.self, from: RootFeaturesScope.self)
    }
    #expect(
      validation.problems.map { $0.diagnostic.renderedTree() } == [
        """
        FeaturesScopeUnchecked: PageScope was not checked below Root: it is not defined there
        ├─ requested at: ArborTests/ValidationPlacesTests.swift:\(line)
        ├─ scope: Root
        ├─ place: declared: contexts.branch(PageScope.self, from: RootFeaturesScope.self)
        ├─ defined in: Root › SessionScope › PageScope
        └─ fix: remove contexts.branch(PageScope.self, from: RootFeaturesScope.self): branches of Root cannot branch PageScope
                or define PageScope with registry.defineScope(PageScope.self) { ... } in FeaturesRoot
        """,
        """
        FeaturesScopeUnchecked: PageScope was not checked below JobScope: validation made no branch of JobScope
        ├─ requested at: ArborTests/ValidationPlacesTests.swift:\(line)
        ├─ scope: Root
        ├─ place: declared: contexts.branch(PageScope.self, from: JobScope.self)
        └─ fix: define JobScope with registry.defineScope(JobScope.self) { ... }
                or remove contexts.branch(PageScope.self, from: JobScope.self)
        """,
      ])
  }
}

/// The request scope: defined at the root, beside `SessionScope`, or nested in it.
private enum PageScope: FeaturesScope { typealias Context = Page }

private struct Page: Hashable, Sendable { let id: Int }

private enum JobScope: FeaturesScope {}

private enum TenantScope: FeaturesScope { typealias Context = String }

/// What a request logs under: the session's user and the request.
private struct RequestLog: CacheableFeature {
  let line: String
  static var placeholder: RequestLog { RequestLog(line: "") }
}

private enum RequestTree {
  /// The head of the diagnostic of `RequestLog`'s read of the session's context in a branch of
  /// `PageScope` made from the root, up to its fixes.
  static func unavailableBelowRoot(page: Int) -> String {
    """
    FeaturesScopeContextUnavailable: no context for SessionScope
    ├─ requested at: ArborTests/ValidationPlacesTests.swift:\(readLine)
    ├─ scope: Root › PageScope(Page(id: \(page)))
    ├─ why: RequestLog is cacheable and registered in PageScope, so it loads in the PageScope branch,
    │       which is branched here from Root: no SessionScope branch is on its path
    """
  }

  /// The line of the loader's read of the session's context.
  static let readLine = #line + 9

  /// `RequestLog`'s loader, which reads the session's context, or reads it if present.
  static func requestLog(readsSessionIfPresent: Bool, seen: Lock<[String]>?) -> FeatureLoader {
    .cacheable { features in
      let user: String
      if readsSessionIfPresent {
        user = try features.context(ifPresent: SessionScope.self)?.user ?? "no session"
      } else {
        user = try features.context(for: SessionScope.self).user
      }
      let line = "\(user), request \(try features.context(for: PageScope.self).id)"
      seen?.withLock { $0.append(line) }
      return RequestLog(line: line)
    }
  }

  /// `PageScope` defined at the root, beside `SessionScope`.
  static func beside(readsSessionIfPresent: Bool = false, seen: Lock<[String]>? = nil) -> Features {
    FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
      registry.defineScope(PageScope.self) { registry in
        registry.use(requestLog(readsSessionIfPresent: readsSessionIfPresent, seen: seen))
      }
    }
  }

  /// `PageScope` nested in `SessionScope`: the fix that moves it.
  static func nested() -> Features {
    FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(PageScope.self) { registry in
          registry.use(requestLog(readsSessionIfPresent: false, seen: nil))
        }
      }
    }
  }

  /// `RequestLog` reading only the session, registered at the root or in `SessionScope`.
  static func rootReader(inSession: Bool) -> Features {
    let loader = FeatureLoader.cacheable { features in
      RequestLog(line: try features.context(for: SessionScope.self).user)
    }
    return FeaturesRoot { registry in
      if !inSession { registry.use(loader) }
      registry.defineScope(SessionScope.self) { registry in
        if inSession { registry.use(loader) }
      }
    }
  }
}
