/// What is left of a close once ``Branch/startClose(at:)`` has marked the branch closed: awaited by
/// ``Branch/completeClose(_:at:isolation:)``.
@usableFromInline
enum CloseRemainder: Sendable {
  /// Another close was first: wait for its outcome.
  case outcomeOfEarlierClose
  /// The branch's descendants, then its own teardowns.
  case run(CloseStep)
}
