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
  /// Runs the teardown with the instance.
  let run: @Sendable () async throws -> Void

  /// `Database (Database.live() at App/Database.swift:8, registered at App/Main.swift:14)`: how
  /// diagnostics name it.
  var described: String {
    var text = "\(feature)"
    if let context { text += " for \(context)" }
    text += " (\(registration.implementation) at \(registration.location)"
    if let binding { text += ", registered at \(binding.site)" }
    return text + ")"
  }
}
