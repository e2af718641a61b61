/// Your view of a features tree from one branch: resolve features, read contexts, branch further.
///
/// A `Features` value is cheap to copy and safe to use from any task or thread. The one you get
/// from ``FeaturesRoot(file:line:_:)`` or ``branch(_:context:file:line:)`` keeps its branch alive;
/// the one a loader receives does not, so an instance may keep it without leaking its branch. Once
/// that branch is released, requests through it throw ``FeaturesReleased``.
///
/// ```swift
/// let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
/// let greeter: Greeter = try session.instance()
/// try greeter.greet()
/// ```
public struct Features: Sendable {
  let retained: Branch?
  weak var loading: Branch?

  /// Features that keep `branch` alive: what users hold.
  package init(_ branch: Branch) {
    retained = branch
  }

  /// Features handed to a loader: they do not keep `branch` alive.
  init(loading branch: Branch) {
    retained = nil
    loading = branch
  }

  /// The branch these features view.
  @inline(__always)
  package func branch(at location: SourceLocation) throws -> Branch {
    if let retained { return retained }
    if let loading { return loading }
    throw FeaturesReleased(at: location)
  }

  /// Resolves a feature with a context: the primitive every other `instance` calls.
  ///
  /// A static feature is its registered value; a disposable is loaded for this request with this
  /// branch's view; a cacheable is loaded once in the nearest branch whose scope registers it (once
  /// per context value) and then read from its cache.
  ///
  /// ```swift
  /// let logger: Logger = try features.instance(context: "billing")
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - context: The context passed to the loader, and for a cacheable, the key of its instance.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance.
  /// - Throws: ``FeatureUndefined``, ``FeatureLoadingFailed``, ``CircularDependency``,
  ///   ``FeatureRegistrationConflict`` or ``FeaturesReleased``.
  public func instance<F: Feature>(
    of feature: F.Type = F.self, context: F.Context, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F {
    let location = SourceLocation(fileID: file, line: line)
    return try branch(at: location).resolve(feature, context: context, at: location)
  }

  /// Resolves a feature that takes no context: a static feature or a disposable.
  ///
  /// ```swift
  /// let printer: Printer = try features.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:)``.
  public func instance<F: Feature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F where F.Context == Void {
    try instance(of: feature, context: (), file: file, line: line)
  }

  /// Resolves a cacheable feature that takes no context: the one instance of its branch.
  ///
  /// ```swift
  /// let greeter: Greeter = try session.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:)``.
  public func instance<F: CacheableFeature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F where F.Context == NoContext {
    try instance(of: feature, context: NoContext(), file: file, line: line)
  }
}
