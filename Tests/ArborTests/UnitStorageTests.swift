import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Foundation
import Synchronization
import Testing

/// A branch keeps room only for the cacheables its scope has used; one made before a cacheable was
/// first used keeps it in an overflow block, with the same guarantees: once per branch, freed with
/// it, whatever races for it.
@Suite struct UnitStorageTests {
  struct Kept: CacheableFeature {
    var object: LiveObjects.Object
    var serial: Int
    static var placeholder: Kept { fatalError("not used") }
  }

  struct Resolve: TagVisitor {
    let features: Features
    var numbers: [Int] = []
    mutating func visit<T: Tag>(_ tag: T.Type, number: Int) throws {
      numbers.append(try features.instance(of: Numbered<T>.self).number)
    }
  }

  /// Resolves the feature numbered 0 only.
  struct ResolveFirst: TagVisitor {
    let features: Features
    var number: Int?
    mutating func visit<T: Tag>(_ tag: T.Type, number: Int) throws {
      if number == 0 { self.number = try features.instance(of: Numbered<T>.self).number }
    }
  }

  static func bytes(of features: Features) throws -> Int {
    try features.withBranch(at: SourceLocation(fileID: #fileID, line: #line)) { $0.unitByteCount }
  }

  @Test func aBranchCostsWhatItsScopeUsesNotWhatItRegisters() throws {
    var register = RegisterNumbered()
    try forEachTag(below: 1000, &register)
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        for loader in register.loaders { registry.use(loader) }
      }
    }
    let first = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try Self.bytes(of: first) == 0)  // nothing of the session's was ever used
    var used = ResolveFirst(features: first)
    try forEachTag(below: 1000, &used)
    #expect(used.number == 0)
    let second = try root.branch(SessionScope.self, context: Session(user: "bob"))
    // One unit: the state word, then the instance.
    #expect(try Self.bytes(of: second) == MemoryLayout<UInt>.stride + MemoryLayout<Numbered<Bits>>.stride)
    var again = ResolveFirst(features: second)
    try forEachTag(below: 1000, &again)
    #expect(again.number == 0)
    var all = Resolve(features: first)
    try forEachTag(below: 1000, &all)
    #expect(all.numbers == Array(0..<1000))
    let third = try root.branch(SessionScope.self, context: Session(user: "cy"))
    var everything = Resolve(features: third)
    try forEachTag(below: 1000, &everything)
    #expect(everything.numbers == Array(0..<1000))
  }

  @Test func branchesMadeBeforeAndAfterAFirstUseEachLoadOnceAndFreeWhatTheyCached() throws {
    let live = LiveObjects()
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Kept(object: .init(live), serial: loads.next()) })
        registry.use(.cacheable { (id: Int, _) in Account(id: id, serial: loads.next()) })
      }
    }
    do {
      let early = try root.branch(SessionScope.self, context: Session(user: "early"))
      let later: Features
      do {
        let before = try root.branch(SessionScope.self, context: Session(user: "before"))
        _ = try before.instance(of: Kept.self)
        later = try root.branch(SessionScope.self, context: Session(user: "later"))
      }
      for branch in [early, later] {
        let kept = try branch.instance(of: Kept.self)
        #expect(try branch.instance(of: Kept.self).serial == kept.serial)
        let account = try branch.instance(of: Account.self, context: 7)
        #expect(try branch.instance(of: Account.self, context: 7).serial == account.serial)
      }
      #expect(loads.value == 5)
      #expect(live.value == 2)
    }
    #expect(live.value == 0)
  }

  @Test func manyThreadsLoadingIntoABranchMadeBeforeAnyUseLoadEachFeatureOnce() throws {
    var register = RegisterNumbered()
    try forEachTag(below: 64, &register)
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 0 }))
      registry.defineScope(SessionScope.self) { registry in
        for loader in register.loaders { registry.use(loader) }
        registry.use(.cacheable { _ in Counter(name: "counted", serial: loads.next()) })
      }
    }
    for round in 0..<20 {
      let early = try root.branch(SessionScope.self, context: Session(user: "\(round)"))
      let seen = Collected<[Int]>()
      let serials = Collected<Int>()
      onThreads(8) { _ in
        var resolve = Resolve(features: early)
        do {
          try forEachTag(below: 64, &resolve)
          serials.append(try early.instance(of: Counter.self).serial)
        } catch {
          Issue.record(error)
        }
        seen.append(resolve.numbers)
      }
      #expect(seen.all.allSatisfy { $0 == Array(0..<64) })
      #expect(Set(serials.all).count == 1)
      #expect(early.invariantViolations() == [])  // every unit loaded, in overflow blocks
    }
    #expect(loads.value == 20)
  }

  @Test func anAsyncLoadIntoABranchMadeBeforeAnyUseIsCachedThere() async throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ async in Counter(name: "async", serial: loads.next()) })
      }
    }
    let early = try root.branch(SessionScope.self, context: Session(user: "early"))
    let other = try root.branch(SessionScope.self, context: Session(user: "other"))
    _ = try await other.instance(of: Counter.self)
    let first = try await early.instance(of: Counter.self)
    #expect(try await early.instance(of: Counter.self).serial == first.serial)
    #expect(try synchronously { try early.instance(of: Counter.self) }.serial == first.serial)
    #expect(loads.value == 2)
  }
}
