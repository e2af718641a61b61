import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// A branch made through the features a loader received keeps its parent alive no more than those
/// features do: an instance may keep such a branch without keeping its own branch alive forever.
@Suite struct LoaderMadeBranchTests {
  /// A session cacheable that keeps a request branch it made while loading.
  struct Workspace: CacheableFeature {
    var object: LiveObjects.Object
    var request: Features
    static var placeholder: Workspace { fatalError("not used") }
  }

  /// What the request branch caches.
  struct Draft: CacheableFeature {
    var object: LiveObjects.Object
    static var placeholder: Draft { fatalError("not used") }
  }

  static func root(_ live: LiveObjects) -> Features {
    FeaturesRoot { registry in
      registry.use(Clock(now: { 42 }))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            let request = try features.branch(RequestScope.self, context: 1)
            _ = try request.instance(of: Draft.self)
            return Workspace(object: .init(live), request: request)
          })
        registry.defineScope(RequestScope.self) { registry in
          registry.use(.cacheable { _ in Draft(object: .init(live)) })
        }
      }
    }
  }

  @Test func droppingTheSessionFreesTheInstanceAndTheBranchItMade() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let workspace: Workspace = try session.instance()
      #expect(live.value == 2)
      #expect(try workspace.request.context(for: SessionScope.self).user == "ann")
      #expect(try workspace.request.instance(of: Clock.self).now() == 42)
    }
    #expect(live.value == 0)
  }

  @Test func requestsThroughTheMadeBranchFailClearlyOnceItsParentIsReleased() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    var request: Features?
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      request = try session.instance(of: Workspace.self).request
    }
    #expect(live.value == 1)  // the session and its workspace are gone; the test keeps the request
    #expect(throws: FeaturesReleased.self) { try request?.instance(of: Draft.self) }
    #expect(throws: FeaturesReleased.self) { try request?.instance(of: Clock.self) }
    #expect(throws: FeaturesReleased.self) { try request?.context(for: SessionScope.self) }
    #expect(throws: FeaturesReleased.self) { try request?.context(for: RequestScope.self) }
    #expect(throws: FeaturesReleased.self) { try request?.branch(RequestScope.self, context: 2) }
    #expect(request?.which(Clock.self).diagnostic?.kind == "FeaturesReleased")
    request = nil
    #expect(live.value == 0)
  }

  @Test func aBranchMadeFromTheMadeBranchFailsClearlyToo() async throws {
    let live = LiveObjects()
    let root = Self.root(live)
    var nested: Features?
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let workspace: Workspace = try await session.instance()
      nested = try workspace.request.branch(RequestScope.self, context: 2)
      #expect(try nested?.context(for: SessionScope.self).user == "ann")
      #expect(try await nested?.instance(of: Clock.self).now() == 42)
    }
    #expect(throws: FeaturesReleased.self) { try synchronously { try nested?.instance(of: Clock.self) } }
    await #expect(throws: FeaturesReleased.self) { try await nested?.instance(of: Clock.self) }
    nested = nil
    #expect(live.value == 0)
  }

  @Test func aBranchMadeByUserFeaturesStillKeepsItsParent() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    var request: Features?
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      request = try session.branch(RequestScope.self, context: 3)
    }
    #expect(try request?.context(for: SessionScope.self).user == "ann")
    #expect(try request?.instance(of: Draft.self) != nil)
    request = nil
    #expect(live.value == 0)
  }
}
