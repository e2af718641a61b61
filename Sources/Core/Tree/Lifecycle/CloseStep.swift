/// One branch of a close's plan: a branch the close holds, and the steps of its open children,
/// newest first, which close before it.
@usableFromInline
struct CloseStep: @unchecked Sendable {
  // Sendable: built under the branches' locks before the close runs, read only afterwards by the
  // one task that runs the close.
  let branch: Branch
  /// Whether this close runs the branch's teardowns; `false` when another close of it started
  /// first, whose outcome this one waits for.
  let runsTeardowns: Bool
  /// The steps of the branch's children, which close before it.
  let children: [CloseStep]
}

/// What is left of a close once ``Branch/startClose(at:)`` has marked the branch closed: awaited by
/// ``Branch/completeClose(_:at:isolation:)``.
@usableFromInline
enum CloseRemainder: Sendable {
  /// Another close was first: wait for its outcome.
  case outcomeOfEarlierClose
  /// The branch's descendants, then its own teardowns.
  case run(CloseStep)
}
