import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Testing

@Suite struct NoLeaksTests {
  struct Holder: CacheableFeature {
    var object: LiveObjects.Object
    var features: Features?
    static var placeholder: Holder { fatalError("not used") }
  }
  struct Disposed: DisposableFeature {
    var object: LiveObjects.Object
    static var placeholder: Disposed { fatalError("not used") }
  }

  static func root(_ live: LiveObjects) -> Features {
    FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        // Every instance keeps the features it was loaded with, as real implementations do.
        registry.use(.cacheable { features in Holder(object: .init(live), features: features) })
        registry.use(.disposable { _ in Disposed(object: .init(live)) })
        registry.use(
          .cacheable { (id: Int, features) in
            _ = try features.instance(of: Holder.self)
            return Account(id: id, serial: 0)
          })
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
  }

  @Test func droppingABranchFreesItsCachedInstancesEvenWhenTheyCapturedFeatures() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let holder: Holder = try session.instance()
      _ = try session.instance(of: Account.self, context: 1)
      #expect(live.value == 1)
      #expect(try holder.features?.context(for: SessionScope.self).user == "ann")
    }
    #expect(live.value == 0)
  }

  @Test func featuresKeptByAnInstanceFailClearlyAfterTheirBranchIsReleased() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    var holder: Holder?
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      holder = try session.instance()
    }
    #expect(live.value == 1)  // the instance outlives its branch because the test keeps it
    #expect(throws: FeaturesReleased.self) { try holder?.features?.context(for: SessionScope.self) }
    holder = nil
    #expect(live.value == 0)
  }

  @Test func droppingTheRootAndItsBranchesFreesWhatTheRootCached() throws {
    let live = LiveObjects()
    do {
      let root = FeaturesRoot { registry in
        registry.use(.cacheable { features in Holder(object: .init(live), features: features) })
        registry.defineScope(SessionScope.self) { _ in }
      }
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      _ = try session.instance(of: Holder.self)  // cached in the root, loaded through the session
      #expect(live.value == 1)
    }
    #expect(live.value == 0)
  }

  @Test func manyBranchesComeAndGoWithoutGrowth() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    for index in 0..<1_000 {
      let session = try root.branch(SessionScope.self, context: Session(user: "\(index)"))
      _ = try session.instance(of: Holder.self)
      _ = try session.instance(of: Disposed.self)
    }
    #expect(live.value == 0)
  }

  @Test func aChildBranchKeepsItsParentAliveForFeaturesKeptByTheParentsInstances() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    var holder: Holder?
    var request: Features?
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      holder = try session.instance()
      request = try session.branch(RequestScope.self, context: 1)
    }
    // Only the request branch keeps the session now: features kept by its instances still work.
    #expect(try holder?.features?.context(for: SessionScope.self).user == "ann")
    #expect(try request?.instance(of: Holder.self).object === holder?.object)
    request = nil
    #expect(throws: FeaturesReleased.self) { try holder?.features?.context(for: SessionScope.self) }
    holder = nil
    #expect(live.value == 0)
  }

  @Test func featuresKeptByAnInstanceEitherWorkOrFailClearlyWhileAnotherThreadDropsTheBranch() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    let outcomes = Lock.make(Outcomes())
    for index in 0..<200 {
      let session = Lock<Features?>.make(try root.branch(SessionScope.self, context: Session(user: "\(index)")))
      // Only the features the instance kept go to the threads: a thread's closure may be released
      // after `onThreads` returns, and must not keep the instance alive then.
      let kept = try session.withLock { try $0!.instance(of: Holder.self) }.features
      onThreads(2) { thread in
        guard thread == 0 else { return session.withLock { $0 = nil } }
        for _ in 0..<50 {
          do {
            _ = try kept?.instance(of: Disposed.self)
            outcomes.withLock { $0.served += 1 }
          } catch is FeaturesReleased {
            outcomes.withLock { $0.released += 1 }
          } catch {
            Issue.record(error)
          }
        }
      }
      #expect(throws: FeaturesReleased.self) { try kept?.instance(of: Disposed.self) }
    }
    #expect(live.value == 0)
    #expect(outcomes.withLock { $0.served + $0.released } == 200 * 50)
  }

  @Test func branchingFromKeptFeaturesWhileAnotherThreadDropsTheParentWorksOrFailsClearly() throws {
    let live = LiveObjects()
    let root = Self.root(live)
    for index in 0..<200 {
      let session = Lock<Features?>.make(try root.branch(SessionScope.self, context: Session(user: "\(index)")))
      let kept = try session.withLock { try $0!.instance(of: Holder.self) }.features
      let children = Lock<[Features]>.make([])
      onThreads(2) { thread in
        guard thread == 0 else { return session.withLock { $0 = nil } }
        for request in 0..<20 {
          do {
            let child = try kept?.branch(RequestScope.self, context: request)
            _ = try child?.instance(of: Holder.self)  // the parent's cacheable, through the child
            children.withLock { $0.append(contentsOf: child.map { [$0] } ?? []) }
          } catch is FeaturesReleased {
            // The parent was released first.
          } catch {
            Issue.record(error)
          }
        }
      }
      // Made through a loader's features, a child keeps its parent no more than they do: once the
      // parent is released, requests through either fail clearly.
      for child in children.withLock({ $0 }) {
        #expect(throws: FeaturesReleased.self) { try child.instance(of: Holder.self) }
      }
      children.withLock { $0 = [] }
      #expect(throws: FeaturesReleased.self) { try kept?.context(for: SessionScope.self) }
    }
    #expect(live.value == 0)
  }

  struct Outcomes {
    var served = 0
    var released = 0
  }
}
