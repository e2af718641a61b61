import Arbor
import Testing

/// A branch makes its lock only when something needs it: a request's branch whose cacheables load
/// without contention never does.
@Suite struct BranchLockTests {
  struct Plain<Tag>: CacheableFeature {
    var value: @Sendable () -> Int
    static var placeholder: Self { Self(value: { 0 }) }
  }
  enum First {}
  enum Second {}

  struct PerContext: CacheableFeature {
    typealias Context = Int
    var value: @Sendable () -> Int
    static var placeholder: Self { Self(value: { 0 }) }
  }

  static func plain<Tag>(_ tag: Tag.Type) -> FeatureLoader {
    .cacheable { features in
      let id = try features.context(for: RequestScope.self)
      return Plain<Tag>(value: { id })
    }
  }

  static let root = FeaturesRoot { registry in
    registry.defineScope(RequestScope.self) { registry in
      registry.use(plain(First.self))
      registry.use(plain(Second.self))
      registry.use(.cacheable { (context: Int, _) in PerContext(value: { context }) })
    }
  }

  @Test func firstLoadsNobodyWaitsForMakeNoLock() throws {
    let request = try Self.root.branch(RequestScope.self, context: 7)
    #expect(try request.instance(of: Plain<First>.self).value() == 7)
    #expect(try request.instance(of: Plain<Second>.self).value() == 7)
    #expect(try request.instance(of: Plain<First>.self).value() == 7)  // cached
    #expect(!request.hasMadeLock)
  }

  @Test func aMultitonsLoadMakesTheLock() throws {
    let request = try Self.root.branch(RequestScope.self, context: 7)
    #expect(!request.hasMadeLock)
    #expect(try request.instance(of: PerContext.self, context: 3).value() == 3)
    #expect(request.hasMadeLock)
  }
}
