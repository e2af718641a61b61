/// What loads waiting for each other share, whatever feature they load.
class AsyncLoadNode: WaitGraph.Node, @unchecked Sendable {
  // Sendable: immutable.
  /// The load's own step and the path that requested it; turned into frames only on failure.
  private let step: LoadStep?
  private let path: AsyncFrame?

  init(step: LoadStep?, path: AsyncFrame?) {
    self.step = step
    self.path = path
  }

  /// The resolution path of the load, for the diagnostic of a loop through it.
  var frames: [LoadStep] { (path?.frames ?? []) + (step.map { [$0] } ?? []) }

  /// Whether the load has ended: a wait for it no longer blocks anyone.
  var isFinished: Bool { false }

  /// The branch the load runs in, until it ends: a close of that branch, or of an ancestor, waits
  /// for it. `nil` for the node of a disposable, which no close waits for.
  var branch: Branch? { nil }

  /// An async load waits only for what it awaits, which is recorded while it does.
  var waitsImplicitlyFor: (any WaitGraph.Node)? { nil }

  /// Suspends until the load has ended, whatever its outcome (a closing branch waits so).
  func ended() async {}

  /// Records that the load received `dependency` from a request it made.
  ///
  /// - Returns: Whether the load keeps it: a cacheable's does, the node of a disposable does not.
  func record(_ dependency: Dependency) -> Bool { false }

  /// Notes that a request of the load found an instance expired and renewed it (see
  /// ``LoadingThread/renewedByRequest``).
  ///
  /// - Returns: Whether the load keeps it: a cacheable's does.
  func note(_ renewed: RenewedByRequest) -> Bool { false }

  /// The requests and the closes suspended until the load ends: read by ``Features/waits``, a test
  /// hook.
  var waits: (requests: Int, closes: Int) { (0, 0) }

  /// Records that `self` waits for `load` and runs `body`, unless the wait would close a loop of
  /// loads waiting for each other.
  ///
  /// - Returns: What `body` returned, or the frames that lead into the loop.
  func wait<R>(for load: AsyncLoadNode, _ body: () async throws -> R) async throws -> Result<R, LoopFound> {
    // The loop's last load is the one that waits for `self`; its frames lead into the loop.
    let loop = WaitGraph.add(self, waitingFor: load) { loop in ((loop.last as? AsyncLoadNode) ?? self).frames }
    if let loop { return .failure(LoopFound(frames: loop)) }
    defer { WaitGraph.remove(self, waitingFor: load) }
    return .success(try await body())
  }

  /// A wait that would close a loop, with the frames that lead into it.
  struct LoopFound: Error {
    let frames: [LoadStep]
  }
}
