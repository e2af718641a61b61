import Arbor
import ArborDemoFeatures
import Testing

@Suite struct CurrentFeaturesTests {
  let root = FeaturesRoot { registry in
    registry.defineScope(SessionScope.self) { registry in
      registry.use(
        .cacheable { features in
          let session = try features.context(for: SessionScope.self)
          return Profile(user: { session.user })
        })
    }
  }

  func session(_ user: String) throws -> Features {
    try root.branch(SessionScope.self, context: Session(user: user))
  }

  /// Code deep in a call stack that knows nothing of the branch it runs in.
  static func currentUser() throws -> String {
    try Features.current().instance(of: Profile.self).user()
  }

  @Test func outsideAnyBlockReadingTheCurrentFeaturesIsAClearError() {
    let line: UInt = #line + 1
    let error = #expect(throws: CurrentFeaturesUndefined.self) { try Features.current() }
    #expect(error?.diagnostic.location?.description == "ArborTests/CurrentFeaturesTests.swift:\(line)")
    #expect(
      error?.description
        == "CurrentFeaturesUndefined: no current features in this task (ArborTests/CurrentFeaturesTests.swift:\(line))")
  }

  @Test func codeBelowABlockReadsItsFeatures() throws {
    #expect(try session("ann").withCurrent { try Self.currentUser() } == "ann")
  }

  @Test func nestingReplacesTheCurrentFeaturesAndRestoresTheOuterOnes() throws {
    let ann = try session("ann")
    let bob = try session("bob")
    let users = try ann.withCurrent {
      let before = try Self.currentUser()
      let inner = try bob.withCurrent { try Self.currentUser() }
      return [before, inner, try Self.currentUser()]
    }
    #expect(users == ["ann", "bob", "ann"])
  }

  @Test func childTasksInheritTheCurrentFeaturesAndDetachedTasksDoNot() async throws {
    let ann = try session("ann")
    let (child, unstructured, detached) = try await ann.withCurrent { () async throws in
      async let child = Self.currentUser()
      let unstructured = Task { try Self.currentUser() }
      let detached = Task.detached { try Self.currentUser() }
      return (try await child, try await unstructured.value, await detached.result)
    }
    #expect(child == "ann")
    #expect(unstructured == "ann")
    #expect(throws: CurrentFeaturesUndefined.self) { try detached.get() }
  }

  @Test func concurrentRequestsEachSeeTheirOwnBranch() async throws {
    let users = try await withThrowingTaskGroup(of: (String, String).self) { group in
      for user in ["ann", "bob", "cid", "dee"] {
        let branch = try session(user)
        group.addTask {
          try await branch.withCurrent {
            await Task.yield()
            return (user, try Self.currentUser())
          }
        }
      }
      return try await group.reduce(into: [String: String]()) { $0[$1.0] = $1.1 }
    }
    #expect(users == ["ann": "ann", "bob": "bob", "cid": "cid", "dee": "dee"])
  }
}

@Suite struct ResolvedTests {
  struct ProfileHandler {
    static let declaration: UInt = #line + 1
    @Resolved var profile: Profile
    func user() -> String { profile.user() }
  }

  final class SessionController {
    @Resolved var profile: Profile
    init(features: Features) {
      _profile = Resolved(in: features)
    }
  }

  let root = CurrentFeaturesTests().root

  @Test func thePropertyResolvesFromTheRightBranchInConcurrentRequests() async throws {
    let users = try await withThrowingTaskGroup(of: (String, String).self) { group in
      for user in ["ann", "bob"] {
        let branch = try root.branch(SessionScope.self, context: Session(user: user))
        group.addTask {
          branch.withCurrent {
            let handler = ProfileHandler()
            return (user, handler.user())
          }
        }
      }
      return try await group.reduce(into: [String: String]()) { $0[$1.0] = $1.1 }
    }
    #expect(users == ["ann": "ann", "bob": "bob"])
  }

  @Test func thePropertyResolvesFromTheFeaturesItsOwnerHolds() throws {
    let controller = SessionController(features: try root.branch(SessionScope.self, context: Session(user: "ann")))
    #expect(controller.profile.user() == "ann")
  }

  struct AccountHandler {
    static let declaration: UInt = #line + 1
    @Resolved var account: Account  // Account takes a context: this declaration forgot it
  }

  @Test func aFeatureThatTakesAContextMustBeDeclaredWithOne() throws {
    let handler = root.withCurrent { AccountHandler() }
    let error = #expect(throws: ResolvedContextMissing.self) { try handler.$account.instance() }
    #expect(
      error?.diagnostic.renderedTree() == """
        ResolvedContextMissing: Account needs a context to resolve
        ├─ requested at: ArborTests/CurrentFeaturesTests.swift:\(AccountHandler.declaration)
        └─ fix: declare it with a context: @Resolved(context: ...) var property: Account
        """)
    let accounts = FeaturesRoot { registry in
      registry.use(.cacheable { (id: Int, _) in Account(id: id, serial: 0) })
    }
    let declared = Resolved<Account>(in: accounts, context: 7)
    #expect(try declared.instance().id == 7)
  }

  @Test func aFailureIsArborsDiagnosticWithTheDeclarationSite() throws {
    let handler = ProfileHandler()  // no current features here
    let error = #expect(throws: CurrentFeaturesUndefined.self) { try handler.$profile.instance() }
    let declaration = "ArborTests/CurrentFeaturesTests.swift:\(ProfileHandler.declaration)"
    #expect(error?.diagnostic.location?.description == declaration)
    let undefined = #expect(throws: FeatureUndefined.self) {
      try root.withCurrent { try ProfileHandler().$profile.instance() }  // Profile lives in SessionScope
    }
    #expect(undefined?.feature == Profile.self)
    #expect(undefined?.diagnostic.location?.description == declaration)
  }
}
