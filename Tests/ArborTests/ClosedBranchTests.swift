import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// After `close()` starts, every request, branch and context lookup through the branch or a
/// descendant fails with `FeaturesClosed`; other branches and the rest of the tree are untouched.
@Suite struct ClosedBranchTests {
  static func tree(_ log: Collected<String>) -> Features {
    FeaturesRoot { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(resource(log, { Pool(name: "root") }, named: "pool"))
      registry.use(.disposable { _ in Printer(print: { log.append($0) }) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Cache(name: "session") }, named: "cache"))
        registry.use(connections(log))
        registry.use(.cacheable { _ async throws in Journal(name: "async") })
        registry.defineScope(TaskScope.self) { _ in }
      }
    }
  }

  @Test func everyKindOfRequestThroughAClosedBranchFails() async throws {
    let log = Collected<String>()
    let root = Self.tree(log)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    // Cached before the close: the inlined read must fail too.
    try synchronously {
      _ = try session.instance(of: Cache.self)
      _ = try session.instance(of: Pool.self)
      _ = try session.instance(of: Connection.self, context: 1)
    }
    _ = try await session.instance(of: Journal.self)
    try await session.close()
    synchronously {
      #expect(throws: FeaturesClosed.self) { try session.instance(of: Cache.self) }  // cached here
      #expect(throws: FeaturesClosed.self) { try session.instance(of: Pool.self) }  // cached in the root
      #expect(throws: FeaturesClosed.self) { try session.instance(of: Connection.self, context: 1) }
      #expect(throws: FeaturesClosed.self) { try session.instance(of: Connection.self, context: 2) }
      #expect(throws: FeaturesClosed.self) { try session.instance(of: Clock.self) }  // static
      #expect(throws: FeaturesClosed.self) { try session.instance(of: Printer.self) }  // disposable
      #expect(throws: FeaturesClosed.self) { try session.context(for: SessionScope.self) }
      #expect(throws: FeaturesClosed.self) { try session.require(SessionScope.self) }
      #expect(throws: FeaturesClosed.self) { try session.branch(TaskScope.self, context: "t") }
    }
    await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Journal.self) }
    await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Cache.self) }
    await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Printer.self) }
    // The rest of the tree is untouched.
    let other = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let untouched = try synchronously {
      [
        try root.instance(of: Pool.self).name, "\(try root.instance(of: Clock.self).now())",
        try other.instance(of: Cache.self).name, try other.context(for: SessionScope.self).user,
      ]
    }
    #expect(untouched == ["root", "1.0", "session", "bob"])
    try await root.close()  // closes the other session too
  }

  @Test func requestsThroughADescendantOfAClosedBranchFail() async throws {
    let log = Collected<String>()
    let root = Self.tree(log)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let task = try session.branch(TaskScope.self, context: "t1")
    try synchronously {
      _ = try task.instance(of: Cache.self)
      _ = try task.instance(of: Pool.self)
    }
    try await session.close()
    synchronously {
      #expect(throws: FeaturesClosed.self) { try task.instance(of: Cache.self) }
      #expect(throws: FeaturesClosed.self) { try task.instance(of: Pool.self) }
      #expect(throws: FeaturesClosed.self) { try task.context(for: TaskScope.self) }
      #expect(throws: FeaturesClosed.self) { try task.context(for: SessionScope.self) }
    }
    #expect(throws: Never.self) { try synchronously { try root.instance(of: Pool.self) } }
    try await root.close()
  }

  @Test func featuresKeptByAnInstanceFailOnceTheirBranchIsClosed() async throws {
    struct Greeting: CacheableFeature {
      var features: Features
      static var placeholder: Greeting { Greeting(features: FeaturesRoot { _ in }) }
    }
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(.cacheable { features in Greeting(features: features) })
    }
    let greeting: Greeting = try synchronously { try root.instance() }
    #expect(try synchronously { try greeting.features.instance(of: Clock.self).now() } == 1)
    try await root.close()
    #expect(throws: FeaturesClosed.self) { try synchronously { try greeting.features.instance(of: Clock.self) } }
    await #expect(throws: FeaturesClosed.self) { try await greeting.features.instance(of: Clock.self) }
  }

  @Test func aLoadThatStartsAfterTheCloseFailsAndIsNotCached() async throws {
    let log = Collected<String>()
    let root = Self.tree(log)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try await session.close()
    #expect(throws: FeaturesClosed.self) { try synchronously { try session.instance(of: Cache.self) } }
    #expect(log.all == [])
    try await root.close()
  }
}
