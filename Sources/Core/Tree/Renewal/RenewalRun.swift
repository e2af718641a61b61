import Synchronization

/// One renewal as it runs, as the ``WaitGraph`` sees it: a close of a branch where it forgot
/// instances waits for its teardowns, a refresh holds the tree's turn while it runs, and its
/// teardowns may wait for a close.
///
/// Recorded in the graph, those waits let a loop through a renewal be found as a loop of closes
/// is: the wait that would close it is not made (see ``ClosesInTask/recordWait(of:for:)``).
final class RenewalRun: WaitGraph.Node, Sendable {
  /// Set once the renewal's teardowns ran: nothing waits for it any more.
  private let hasEnded = Atomic<Bool>(false)

  var isFinished: Bool { hasEnded.load(ordering: .sequentiallyConsistent) }

  /// A renewal waits only through the waits it records.
  var waitsImplicitlyFor: (any WaitGraph.Node)? { nil }

  /// The renewal ran its teardowns.
  func end() {
    hasEnded.store(true, ordering: .sequentiallyConsistent)
  }
}
