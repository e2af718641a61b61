import Synchronization

/// Test containers replace resolution through this hook; a tree without one never consults it.
package protocol FeatureOverrides: AnyObject, Sendable {
  /// The instance a request gets instead of resolving, if any.
  func instance<F: Feature>(of feature: F.Type, context: F.Context) -> F?
  /// The context of a scope that no branch on the path carries, if the container provides one.
  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context?
  /// Whether a feature nobody registered resolves to its placeholder instead of failing.
  var resolvesPlaceholders: Bool { get }
}

/// A node of a features tree: a scope's definition, a context, and the instances cached here.
///
/// Cached instances without a context are published in atomic slots, one per cacheable the scope
/// registers, so a cached resolve is a table lookup and an acquiring load: no lock, no allocation.
/// Loads and multiton caches take this branch's lock briefly, never while a loader runs.
package final class Branch: @unchecked Sendable {
  // Sendable: every stored property is immutable except through `slots` (atomics) and `state`
  // (a Lock); the slot buffer is allocated in init and freed in deinit, when no reader remains.
  package let definition: ScopeDefinition
  package let parent: Branch?
  package let path: ScopePath
  package let overrides: (any FeatureOverrides)?
  private let slots: UnsafeMutablePointer<Atomic<UInt>>
  let state = Lock.make(State())

  struct State {
    var inFlight: [Int: InFlight] = [:]
    var multitons: [ObjectIdentifier: AnyObject] = [:]
    /// Async loads in flight (`AsyncLoad<F>`), by feature and context.
    var asyncLoads: [AsyncLoadKey: AnyObject] = [:]
  }

  package init(definition: ScopeDefinition, parent: Branch?, path: ScopePath, overrides: (any FeatureOverrides)?) {
    self.definition = definition
    self.parent = parent
    self.path = path
    self.overrides = overrides
    slots = .allocate(capacity: definition.slotCount)
    for slot in 0..<definition.slotCount { (slots + slot).initialize(to: Atomic(0)) }
  }

  deinit {
    for slot in 0..<definition.slotCount {
      let stored = slots[slot].load(ordering: .acquiring)
      if stored != 0 { Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: stored)!).release() }
    }
    slots.deinitialize(count: definition.slotCount)
    slots.deallocate()
  }

  /// The branch `depth` levels up.
  @inline(__always)
  func ancestor(_ depth: Int) -> Branch {
    var branch = self
    for _ in 0..<depth { branch = branch.parent.unsafelyUnwrapped }
    return branch
  }

  /// The published instance in `slot`, if it was loaded.
  @inline(__always)
  func cached<F: Feature>(_ feature: F.Type, slot: Int) -> F? {
    let stored = slots[slot].load(ordering: .acquiring)
    guard stored != 0 else { return nil }
    return Unmanaged<Box<F>>.fromOpaque(UnsafeRawPointer(bitPattern: stored)!)._withUnsafeGuaranteedRef { $0.value }
  }

  /// Publishes a loaded instance in `slot`; the slot keeps the box until the branch is released.
  func publish(_ box: AnyObject, slot: Int) {
    slots[slot].store(UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()), ordering: .releasing)
  }

  /// The branch of the root of this tree.
  var root: Branch { parent?.root ?? self }
}
