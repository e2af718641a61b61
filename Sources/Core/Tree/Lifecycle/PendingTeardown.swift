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

  /// What tears down `instance`, cached for `context` by `binding`'s loader, which has a teardown.
  init<F: Feature>(of instance: F, context: F.Context?, binding: Binding) {
    // A cacheable's Context is Hashable.
    let key = LoadKey(feature: ObjectIdentifier(F.self), context: context.map { ContextKey($0 as! AnyHashable) })
    self.init(of: instance, registration: binding.registration, binding: binding, context: context, key: key)!
  }

  /// What tears down `instance`, which a test container loaded; `nil` when it has no teardown.
  init?<F: Feature>(of instance: F, loadedBy registration: Registration) {
    self.init(of: instance, registration: registration, binding: nil, context: nil, key: nil)
  }

  private init?<F: Feature>(
    of instance: F, registration: Registration, binding: Binding?, context: (any Sendable)?, key: LoadKey?
  ) {
    // A registration with a teardown of `F` holds a `Teardown<F>`.
    guard let teardown = registration.teardown.map({ UncountedReference.cast($0, to: Teardown<F>.self) }) else {
      return nil
    }
    (feature, self.registration, self.binding, self.context, self.key) = (F.self, registration, binding, context, key)
    body = { try await teardown.run(instance) }
  }

  /// How diagnostics name it: `Database (Database.live() at App/Database.swift:8, registered at …)`.
  var described: String {
    var text = "\(feature)"
    if let context { text += " for \(context)" }
    text += " (\(registration.implementation) at \(registration.location)"
    if let binding { text += ", registered at \(binding.site)" }
    return text + ")"
  }

  /// Records this teardown in `branch`, to run when it closes: before the instance's load ends.
  func record(in branch: Branch) {
    branch.makePathIfTethered()
    branch.state.withLock { record(in: branch, state: &$0) }
  }

  /// Records this teardown under `branch`'s lock: call ``Branch/makePathIfTethered()`` first.
  func record(in branch: Branch, state: inout Branch.State) {
    state.teardowns.record(self)
    branch.hasRecordedTeardowns = true
  }

  /// Runs the teardown as lifecycle work, within its time limit (past it, it is left running).
  func run(in branch: Branch) async -> TeardownFailed.Failure? {
    let observer = branch.definition.observer
    let start = observer != nil ? ContinuousClock.now : nil
    let (limit, work, body) = (binding?.lifecycle.teardownTimeLimit, LifecycleWork.teardown(self), body)
    let run: @Sendable () async throws -> Void = {
      try await LifecycleWork.$current.withValue(work) { try await body() }
    }
    var failure: (any Error)?
    switch await TimeLimit.run(within: limit, on: branch.definition.renewals, run) {
    case .finished(.success): break
    case .finished(.failure(let error)): failure = error
    case .timedOut, .stopped: failure = TeardownTimedOut(limit: limit ?? .zero)
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
/// a renewal those it forgot while the branch is open. Changed only under the branch's lock.
struct OwedTeardowns {
  /// Every teardown owed, by the number it was recorded under.
  private var owed = OrderedTable<Int, PendingTeardown>()
  /// The number of the teardown of each instance cached now.
  private var numbersOfCached: [LoadKey: Int] = [:]
  private var nextNumber = 0
  /// How many teardowns renewals took from here and have not run yet: a close runs its own after.
  var runningForRenewals = 0
  var closesWaitingForRenewals: [CheckedContinuation<Void, Never>] = []

  var isEmpty: Bool { owed.isEmpty }

  var all: [PendingTeardown] { owed.values }

  mutating func record(_ teardown: PendingTeardown) {
    if let key = teardown.key { numbersOfCached[key] = nextNumber }
    owed.append(teardown, for: nextNumber)
    nextNumber += 1
  }

  /// A renewal forgot the instance under `key`: its teardown stays owed, under the number returned.
  mutating func forget(_ key: LoadKey) -> Int? {
    numbersOfCached.removeValue(forKey: key)
  }

  /// Takes those of `numbers` still owed, in order, for a renewal: a close waits for them.
  mutating func take(_ numbers: [Int]) -> [PendingTeardown] {
    let taken = numbers.sorted().compactMap { owed.remove($0) }
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
    numbersOfCached = [:]
    return owed.removeAll()
  }
}
