import Arbor
import ArborDiagnostics
import Foundation
import Synchronization
import Testing

/// White-box tests of the engine's unsafe storage, through its `package` hooks: feature tables
/// built from chosen keys, branches whose contexts and instances have every alignment, the
/// invariant checker, and the loading state of a thread that exits.
@Suite struct WhiteBoxTests {
  // MARK: Feature tables

  @Test func keysThatShareAHomeBucketAreAllFoundAndAbsentOnesAreNot() {
    // Keys chosen so that eight share one home bucket, and more probe past the table's end.
    let sizing = FeatureTableProbe(keys: Array(1...16))
    let last = sizing.bucketCount - 1
    var colliding: [UInt] = []
    var wrapping: [UInt] = []
    var candidate: UInt = 1
    while colliding.count < 8 || wrapping.count < 4 {
      let home = sizing.homeBucket(of: candidate)
      if home == 3, colliding.count < 8 { colliding.append(candidate) }
      if home == last, wrapping.count < 4 { wrapping.append(candidate) }
      candidate += 1
    }
    let keys = colliding + wrapping + [UInt.max, 0x10]
    let table = FeatureTableProbe(keys: Array(Set(keys)).sorted())
    #expect(table.bucketCount == sizing.bucketCount)  // the same size for the same count
    for key in keys { #expect(table.probe(key) == key) }
    for absent in [UInt(2), UInt.max - 1, candidate + 1] where !keys.contains(absent) {
      #expect(table.probe(absent) == nil)
    }
  }

  @Test(arguments: [1, 2, 3, 7, 8, 100, 1_000])
  func aTableIsNeverMoreThanHalfFull(entries: Int) {
    let table = FeatureTableProbe(keys: (1...UInt(entries)).map { $0 &* 0x1_0000_0001 })
    #expect(table.bucketCount >= entries * 2)
    #expect(table.bucketCount & (table.bucketCount - 1) == 0)
    for key in (1...UInt(entries)).map({ $0 &* 0x1_0000_0001 }) { #expect(table.probe(key) == key) }
  }

  // MARK: Derived definitions

  @Test func everyDefinitionDerivedBelowABranchsIsFreedWithItsTree() throws {
    // Two scopes the root defines, branched from a session, whose scope does not: each is derived
    // below the session's definition, the second in front of the first in its list.
    var derived: [WeakState] = []
    do {
      let root = FeaturesRoot { registry in
        registry.defineScope(WhiteBoxSessionScope.self) { _ in }
        registry.defineScope(WhiteBoxRequestScope.self) { _ in }
        registry.defineScope(WhiteBoxJobScope.self) { _ in }
      }
      let session = try root.branch(WhiteBoxSessionScope.self, context: 1)
      let here = SourceLocation(fileID: #fileID, line: #line)
      for branch in [
        try session.branch(WhiteBoxRequestScope.self, context: 2),
        try session.branch(WhiteBoxJobScope.self, context: 3),
      ] {
        derived.append(WeakState(object: try branch.withBranch(at: here) { $0.definition }))
      }
      #expect(derived.allSatisfy { $0.object != nil })
    }
    #expect(derived.allSatisfy { $0.object == nil })
  }

  // MARK: Alignment and destruction

  @Test func contextsAndInstancesOfEveryAlignmentAreStoredAlignedAndDestroyedOnce() throws {
    let destroyed = Tracked.Count()
    do {
      let root = FeaturesRoot { registry in
        registry.defineScope(Align1Scope.self) { registry in
          registry.use(.cacheable { _ in Align1(byte: 1, tracked: Tracked(destroyed)) })
          registry.use(.cacheable { _ in Align16(vector: SIMD4(1, 2, 3, 4), tracked: Tracked(destroyed)) })
          registry.use(.cacheable { (key: Int8, _) in Keyed1(byte: UInt8(key), tracked: Tracked(destroyed)) })
          registry.defineScope(Align16Scope.self) { registry in
            registry.use(.cacheable { _ in Align8(word: 8, tracked: Tracked(destroyed)) })
            registry.use(.cacheable { _ in Align16(vector: SIMD4(5, 6, 7, 8), tracked: Tracked(destroyed)) })
          }
        }
      }
      let outer = try root.branch(Align1Scope.self, context: 0x5A)
      let inner = try outer.branch(Align16Scope.self, context: SIMD4(9, 10, 11, 12))
      #expect(try outer.instance(of: Align1.self).byte == 1)
      #expect(try outer.instance(of: Align16.self).vector == SIMD4(1, 2, 3, 4))
      for key in Int8(0)..<20 { #expect(try outer.instance(of: Keyed1.self, context: key).byte == UInt8(key)) }
      #expect(try inner.instance(of: Align8.self).word == 8)
      #expect(try inner.instance(of: Align16.self).vector == SIMD4(5, 6, 7, 8))
      #expect(try inner.context(for: Align16Scope.self) == SIMD4(9, 10, 11, 12))
      #expect(try inner.context(for: Align1Scope.self) == 0x5A)
      #expect(outer.invariantViolations() == [])
      #expect(inner.invariantViolations() == [])
      #expect(destroyed.value == 0)
    }
    // Two in `outer`, twenty in its multiton, two in `inner`: each destroyed exactly once.
    #expect(destroyed.value == 24)
  }

  @Test func unitsGivenOutAfterABranchWasMadeKeepTheInvariantsInOverflowBlocks() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(Align1Scope.self) { registry in
        registry.use(.cacheable { _ in Align1(byte: 1, tracked: nil) })
        registry.use(.cacheable { _ in Align8(word: 8, tracked: nil) })
        registry.use(.cacheable { _ in Align16(vector: .one, tracked: nil) })
      }
    }
    let early = try root.branch(Align1Scope.self, context: 1)  // made before any unit is given out
    _ = try root.branch(Align1Scope.self, context: 2).instance(of: Align8.self)
    let middle = try root.branch(Align1Scope.self, context: 3)
    _ = try middle.instance(of: Align16.self)
    _ = try early.instance(of: Align1.self)
    _ = try early.instance(of: Align16.self)
    for branch in [early, middle] { #expect(branch.invariantViolations() == []) }
  }

  // MARK: The checker

  @Test func theCheckerReportsAUnitClaimedByALoadInProgress() throws {
    let seenInside = Lock<[String]>.make([])
    let root = FeaturesRoot { registry in
      registry.defineScope(Align1Scope.self) { registry in
        registry.use(.cacheable { _ in Align8(word: 8, tracked: nil) })
        registry.use(
          .cacheable { features in
            let outer = try features.instance(of: Align8.self)
            // Inside this load: its own unit is claimed, which only a quiescent check rejects.
            let checker = try features.instance(of: Checker.self)
            seenInside.withLock { $0 = checker.quiescent() + ["--"] + checker.busy() }
            return Align16(vector: SIMD4(repeating: Float(outer.word)), tracked: nil)
          })
        registry.use(.disposable { features in Checker(features: features) })
      }
    }
    let branch = try root.branch(Align1Scope.self, context: 7)
    _ = try branch.instance(of: Align16.self)
    #expect(seenInside.withLock { $0 } == ["Root › Align1Scope(7): unit 0 is claimed by a load in progress", "--"])
    #expect(branch.invariantViolations() == [])
  }

  // MARK: Threads

  @Test func aThreadsLoadingStateIsFreedWhenTheThreadExits() throws {
    let root = FeaturesRoot { registry in registry.use(.cacheable { _ in Align8(word: 8, tracked: nil) }) }
    let state = Lock<WeakState>.make(WeakState())
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      _ = try? root.instance(of: Align8.self)
      let current = loadingStateOfCurrentThread()
      state.withLock { $0.object = current }
      done.signal()
    }
    thread.start()
    done.wait()
    // The state is released by the thread's exit, just after its body returns.
    let deadline = Date().addingTimeInterval(60)
    while state.withLock({ $0.object != nil }), Date() < deadline { usleep(1_000) }
    #expect(state.withLock { $0.object == nil })
  }
}

private struct WeakState {
  weak var object: AnyObject?
}

/// Counts its own deinitialisations, to prove each stored instance is destroyed exactly once.
private final class Tracked: Sendable {
  final class Count: Sendable {
    private let count = Atomic(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
  }

  private let count: Count
  init(_ count: Count) { self.count = count }
  deinit { count.increment() }
}

private enum Align1Scope: FeaturesScope { typealias Context = UInt8 }
private enum WhiteBoxSessionScope: FeaturesScope { typealias Context = Int }
private enum WhiteBoxRequestScope: FeaturesScope { typealias Context = Int }
private enum WhiteBoxJobScope: FeaturesScope { typealias Context = Int }
private enum Align16Scope: FeaturesScope { typealias Context = SIMD4<Float> }

private struct Align1: CacheableFeature {
  typealias Context = NoContext
  let byte: UInt8
  let tracked: Tracked?
  static var placeholder: Align1 { Align1(byte: 0, tracked: nil) }
}

/// One byte per context value: a multiton of 1-byte-aligned contexts.
private struct Keyed1: CacheableFeature {
  typealias Context = Int8
  let byte: UInt8
  let tracked: Tracked?
  static var placeholder: Keyed1 { Keyed1(byte: 0, tracked: nil) }
}

private struct Align8: CacheableFeature {
  typealias Context = NoContext
  let word: UInt64
  let tracked: Tracked?
  static var placeholder: Align8 { Align8(word: 0, tracked: nil) }
}

private struct Align16: CacheableFeature {
  typealias Context = NoContext
  let vector: SIMD4<Float>
  let tracked: Tracked?
  static var placeholder: Align16 { Align16(vector: .zero, tracked: nil) }
}

/// The checker, from inside a load: the branch's violations while quiescent, and while busy.
private struct Checker: DisposableFeature {
  let quiescent: @Sendable () -> [String]
  let busy: @Sendable () -> [String]

  init(features: Features) {
    quiescent = { features.invariantViolations(quiescent: true) }
    busy = { features.invariantViolations(quiescent: false) }
  }

  init(quiescent: @escaping @Sendable () -> [String], busy: @escaping @Sendable () -> [String]) {
    self.quiescent = quiescent
    self.busy = busy
  }

  static var placeholder: Checker { Checker(quiescent: { [] }, busy: { [] }) }
}
