/// Something whose internal invariants a white-box test can check.
package protocol InvariantChecking: AnyObject {
  /// Every invariant that does not hold, in words; empty when all hold.
  ///
  /// - Parameter quiescent: Whether no request is in progress, so that nothing may be mid-load.
  func invariantViolations(quiescent: Bool) -> [String]
}
