/// A cached instance a renewal let go of: where it was, what loaded it, and the teardown the
/// renewal runs for it instead of its branch's close.
struct ForgottenInstance: @unchecked Sendable {
  // Sendable: immutable.
  let instance: CachedInstance
  /// The branch that cached it, kept alive until its teardown ran.
  let branch: Branch
  let registration: Registration
  /// The instance's context, for a multiton.
  let context: ContextKey?
  let teardown: PendingTeardown?
}
