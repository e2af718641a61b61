/// An instance cached in a branch whose loader has a teardown: what `close()` runs for it.
struct PendingTeardown: Sendable {
  let feature: any Feature.Type
  let registration: Registration
  /// Where it was registered; `nil` for a loader a test container ran (`features.load(...)`).
  let binding: Binding?
  /// The instance's context, for a multiton.
  let context: (any Sendable)?
  /// What the branch caches the instance under; `nil` for one a test container's `load` made.
  let key: LoadKey?
  /// Calls the teardown with the instance.
  private let body: @Sendable () async throws -> Void

  /// What tears down `instance`, cached for `context` by `binding`'s loader, which has a teardown.
  init<F: Feature>(of instance: F, context: F.Context?, binding: Binding) {
    // A registration with a teardown of `F` holds a `Teardown<F>`.
    let teardown = UncountedReference.cast(binding.registration.teardown!, to: Teardown<F>.self)
    feature = F.self
    registration = binding.registration
    self.binding = binding
    self.context = context
    // A cacheable's Context is Hashable.
    key = LoadKey(feature: ObjectIdentifier(F.self), context: context.map { ContextKey($0 as! AnyHashable) })
    body = { try await teardown.run(instance) }
  }

  /// What tears down `instance`, which a test container loaded with `registration`'s loader; `nil`
  /// when the loader has no teardown.
  init?<F: Feature>(of instance: F, loadedBy registration: Registration) {
    // A registration with a teardown of `F` holds a `Teardown<F>`.
    guard let teardown = registration.teardown.map({ UncountedReference.cast($0, to: Teardown<F>.self) }) else {
      return nil
    }
    feature = F.self
    self.registration = registration
    binding = nil
    context = nil
    key = nil
    body = { try await teardown.run(instance) }
  }

  /// `Database (Database.live() at App/Database.swift:8, registered at App/Main.swift:14)`: how
  /// diagnostics name it.
  var described: String {
    var text = "\(feature)"
    if let context { text += " for \(context)" }
    text += " (\(registration.implementation) at \(registration.location)"
    if let binding { text += ", registered at \(binding.site)" }
    return text + ")"
  }

  /// Records this teardown in `branch`, to run when it closes: for an instance just cached there,
  /// before its load ends, or one a test container's `load` made.
  func record(in branch: Branch) {
    branch.makePathIfTethered()
    branch.state.withLock { record(in: branch, state: &$0) }
  }

  /// Records this teardown in `branch`, under its lock, with its `state`: call
  /// ``Branch/makePathIfTethered()`` first.
  func record(in branch: Branch, state: inout Branch.State) {
    state.teardowns.record(self)
    branch.hasRecordedTeardowns = true
  }

  /// Runs the teardown of this instance, cached in `branch`, within its time limit (on the root's
  /// clock), as lifecycle work, and tells the tree's observer and a test container's overrides.
  ///
  /// - Returns: Its failure, if it threw or passed its time limit (it is then left running).
  func run(in branch: Branch) async -> TeardownFailed.Failure? {
    let observer = branch.definition.observer
    var failure: (any Error)?
    let start = observer != nil ? ContinuousClock.now : nil
    do {
      let limit = binding?.lifecycle.teardownTimeLimit
      let work = LifecycleWork.teardown(self)
      let body = body
      let run: @Sendable () async throws -> Void = {
        try await LifecycleWork.$current.withValue(work) { try await body() }
      }
      switch await TimeLimit.run(within: limit, on: branch.definition.renewals, run) {
      case .finished(let outcome): try outcome.get()
      case .timedOut, .stopped: throw TeardownTimedOut(limit: limit ?? .zero)
      }
    } catch {
      failure = error
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

/// The teardowns a branch owes, in the order their instances were cached: those of the instances it
/// caches, and those of instances renewals forgot and have not torn down yet. A close takes them
/// all; a renewal takes those it forgot while the branch is open.
///
/// A value in the branch's `state`, changed only under its lock.
struct OwedTeardowns {
  /// Every teardown owed, by the number it was recorded under.
  private var owed = OrderedTable<Int, PendingTeardown>()
  /// The number of the teardown of each instance cached now.
  private var numbersOfCached: [LoadKey: Int] = [:]
  private var nextNumber = 0
  /// How many teardowns renewals took from here and have not run yet: a close runs its own after.
  var runningForRenewals = 0
  /// The closes waiting for those.
  var closesWaitingForRenewals: [CheckedContinuation<Void, Never>] = []

  var isEmpty: Bool { owed.isEmpty }

  /// Every teardown owed, in the order the instances were cached.
  var all: [PendingTeardown] { owed.values }

  mutating func record(_ teardown: PendingTeardown) {
    if let key = teardown.key { numbersOfCached[key] = nextNumber }
    owed.append(teardown, for: nextNumber)
    nextNumber += 1
  }

  /// A renewal forgot the instance cached under `key`: its teardown stays owed, under the number
  /// returned, until the renewal takes it (``take(_:)``) or a close does.
  mutating func forget(_ key: LoadKey) -> Int? {
    numbersOfCached.removeValue(forKey: key)
  }

  /// Takes the teardowns recorded under `numbers` that are still owed, in the order they were
  /// recorded, for a renewal to run: a close of the branch waits for them (``runningForRenewals``).
  mutating func take(_ numbers: [Int]) -> [PendingTeardown] {
    let taken = numbers.sorted().compactMap { owed.remove($0) }
    if !taken.isEmpty { runningForRenewals += 1 }
    return taken
  }

  /// The teardowns a renewal took ran.
  ///
  /// - Returns: The closes to resume, once no renewal's teardown runs here.
  mutating func takenRan() -> [CheckedContinuation<Void, Never>] {
    runningForRenewals -= 1
    guard runningForRenewals == 0 else { return [] }
    defer { closesWaitingForRenewals = [] }
    return closesWaitingForRenewals
  }

  /// Takes every teardown owed, for a close, in the order the instances were cached.
  mutating func takeAll() -> [PendingTeardown] {
    numbersOfCached = [:]
    return owed.removeAll()
  }
}
