/// An instance cached in a branch whose loader has a teardown: what `close()` runs for it.
struct PendingTeardown: Sendable {
  let feature: any Feature.Type
  let registration: Registration
  /// Where it was registered; `nil` for a loader a test container ran (`features.load(...)`).
  let binding: Binding?
  let context: (any Sendable)?
  /// What the branch caches the instance under; `nil` for one a test container's `load` made.
  let key: LoadKey?
  private let body: @Sendable () async throws -> Void
  /// Its number in its branch's ``OwedTeardowns``, and whether a renewal forgot its instance.
  fileprivate var number = 0
  fileprivate var isForgotten = false

  /// What tears down `instance`, cached for `context` by `binding`'s loader, which has a teardown.
  /// Specialised on a load's path: no optional of a generic type, no shared generic init.
  init<F: Feature>(of instance: F, context: F.Context?, binding: Binding) {
    // A registration with a teardown of `F` holds a `Teardown<F>`; a cacheable's Context is Hashable.
    let teardown = UncountedReference.cast(binding.registration.teardown!, to: Teardown<F>.self)
    (feature, registration, self.binding, self.context) = (F.self, binding.registration, binding, context)
    key = LoadKey(feature: ObjectIdentifier(F.self), context: context.map { ContextKey($0 as! AnyHashable) })
    body = { try await teardown.run(instance) }
  }

  /// What tears down `instance`, which a test container loaded; `nil` when it has no teardown.
  init?<F: Feature>(of instance: F, loadedBy registration: Registration) {
    guard let teardown = registration.teardown.map({ UncountedReference.cast($0, to: Teardown<F>.self) }) else {
      return nil
    }
    (feature, self.registration, binding, context, key) = (F.self, registration, nil, nil, nil)
    body = { try await teardown.run(instance) }
  }

  /// How diagnostics name it: `Database (Database.live() at App/Database.swift:8, registered at …)`.
  var described: String { Self.describe(feature, context: context, registration, binding) }

  static func describe(
    _ feature: any Feature.Type, context: (any Sendable)?, _ registration: Registration, _ binding: Binding?
  ) -> String {
    var text = "\(feature)"
    if let context { text += " for \(context)" }
    text += " (\(registration.implementation) at \(registration.location)"
    if let binding { text += ", registered at \(binding.site)" }
    return text + ")"
  }

  /// Records this teardown in `branch`, to run when it closes: before the instance's load ends.
  ///
  /// - Returns: Its number among the branch's ``OwedTeardowns``.
  @discardableResult
  func record(in branch: Branch) -> Int {
    branch.makePathIfTethered()
    return branch.state.withLock { record(in: branch, state: &$0) }
  }

  /// Records this teardown under `branch`'s lock: call ``Branch/makePathIfTethered()`` first.
  ///
  /// - Returns: Its number among the branch's ``OwedTeardowns``.
  @discardableResult
  func record(in branch: Branch, state: inout Branch.State) -> Int {
    let number = state.teardowns.record(self)
    branch.hasRecordedTeardowns = true
    return number
  }

  /// Runs the teardown as lifecycle work, within its time limit (past it, it is left running).
  func run(in branch: Branch) async -> TeardownFailed.Failure? {
    let observer = branch.definition.observer
    let start = observer != nil ? ContinuousClock.now : nil
    let (limit, work, body) = (
      binding?.lifecycle.teardownTimeLimit, LifecycleWork.teardown(feature, registration, binding), body
    )
    var failure: (any Error)?
    if let limit {
      let run: @Sendable () async throws -> Void = { try await LifecycleWork.$current.withValue(work, operation: body) }
      switch await TimeLimit.run(within: limit, on: branch.definition.renewals, run) {
      case .finished(.success): break
      case .finished(.failure(let error)): failure = error
      case .timedOut, .stopped: failure = TeardownTimedOut(limit: limit)
      }
    } else {
      do { try await LifecycleWork.$current.withValue(work, operation: body) } catch { failure = error }
    }
    // The path only when something reports it: most teardowns succeed unobserved.
    if let observer, let start {
      observer.tornDown(
        TeardownEvent(self, branchPath: branch.path, start: start, duration: .now - start, error: failure))
    }
    branch.overrides?.tornDown(feature, implementation: registration.implementation, in: branch.path, failure: failure)
    return failure.map { TeardownFailed.Failure(self, in: branch.path, cause: $0) }
  }
}

/// The teardowns a branch owes, in load order, also of instances renewals forgot: a close takes all,
/// a renewal those it forgot while the branch is open. Changed only under the branch's lock; a load
/// appends (no hashing on its path), and a renewal finds a teardown by its number: numbers grow in
/// the order of `all`, so a binary search finds one, and a sorted batch is taken in one pass.
struct OwedTeardowns {
  /// Every teardown owed, in load order.
  private(set) var all: [PendingTeardown] = []
  private var nextNumber = 0
  /// How many teardowns renewals took from here and have not run yet: a close runs its own after.
  var runningForRenewals = 0
  var closesWaitingForRenewals: [CheckedContinuation<Void, Never>] = []

  var isEmpty: Bool { all.isEmpty }

  /// - Returns: The number `teardown` is owed under.
  mutating func record(_ teardown: PendingTeardown) -> Int {
    var numbered = teardown
    (numbered.number, nextNumber) = (nextNumber, nextNumber + 1)
    all.append(numbered)
    return numbered.number
  }

  /// A renewal forgot the instance whose teardown is owed under `number`: it stays owed.
  ///
  /// - Returns: Whether it is owed here and was not forgotten yet.
  mutating func forget(_ number: Int) -> Bool {
    guard let index = index(of: number), !all[index].isForgotten else { return false }
    all[index].isForgotten = true
    return true
  }

  /// A renewal forgot the instance cached under `key`, whose teardown is the newest owed for it
  /// and not forgotten yet: it stays owed.
  ///
  /// - Returns: The number it is owed under, if it is.
  mutating func forgetNewest(_ key: LoadKey) -> Int? {
    guard let index = all.lastIndex(where: { !$0.isForgotten && $0.key == key }) else { return nil }
    all[index].isForgotten = true
    return all[index].number
  }

  /// Takes those of `numbers` still owed, in order, for a renewal: a close waits for them.
  mutating func take(_ numbers: [Int]) -> [PendingTeardown] {
    let wanted = numbers.sorted()
    var next = 0
    var taken: [PendingTeardown] = []
    all.removeAll { entry in
      while next < wanted.count && wanted[next] < entry.number { next += 1 }
      guard next < wanted.count && wanted[next] == entry.number else { return false }
      taken.append(entry)
      return true
    }
    if !taken.isEmpty { runningForRenewals += 1 }
    return taken
  }

  /// The teardowns a renewal took ran: returns the closes to resume, once none runs here.
  mutating func takenRan() -> [CheckedContinuation<Void, Never>] {
    runningForRenewals -= 1
    guard runningForRenewals == 0 else { return [] }
    defer { closesWaitingForRenewals = [] }
    return closesWaitingForRenewals
  }

  mutating func takeAll() -> [PendingTeardown] {
    defer { all = [] }
    return all
  }

  /// Where the teardown owed under `number` is in `all`, if it is owed.
  private func index(of number: Int) -> Int? {
    var (low, high) = (0, all.count)
    while low < high {
      let middle = (low + high) / 2
      if all[middle].number < number { low = middle + 1 } else { high = middle }
    }
    return low < all.count && all[low].number == number ? low : nil
  }
}
