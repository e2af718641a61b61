/// What loads waiting for each other share, whatever feature they load.
class AsyncLoadNode: @unchecked Sendable {
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

  /// The loads each load waits for (a loader may wait for several at once, with `async let`).
  private static let waits = Lock<[ObjectIdentifier: [AsyncLoadNode]]>.make([:])

  /// Records that `self` waits for `load` and runs `body`, unless the wait would close a loop of
  /// loads waiting for each other.
  ///
  /// - Returns: `nil` after `body`, or the frames that lead into the loop.
  func wait<R>(for load: AsyncLoadNode, _ body: () async throws -> R) async throws -> Result<R, LoopFound> {
    let loop = Self.waits.withLock { waits -> [LoadStep]? in
      if load === self { return frames }
      // Depth first over unfinished loads: a finished one blocks nobody, even before its waiters
      // remove their edges.
      var visited: Set<ObjectIdentifier> = []
      var stack: [AsyncLoadNode] = [load]
      while let node = stack.popLast() {
        guard !node.isFinished, visited.insert(ObjectIdentifier(node)).inserted else { continue }
        for next in waits[ObjectIdentifier(node), default: []] {
          if next === self { return node.frames }
          stack.append(next)
        }
      }
      waits[ObjectIdentifier(self), default: []].append(load)
      return nil
    }
    if let loop { return .failure(LoopFound(frames: loop)) }
    defer {
      Self.waits.withLock { waits in
        guard let index = waits[ObjectIdentifier(self)]?.firstIndex(where: { $0 === load }) else { return }
        waits[ObjectIdentifier(self)]!.remove(at: index)
        if waits[ObjectIdentifier(self)]!.isEmpty { waits[ObjectIdentifier(self)] = nil }
      }
    }
    return .success(try await body())
  }

  /// A wait that would close a loop, with the frames that lead into it.
  struct LoopFound: Error {
    let frames: [LoadStep]
  }
}
