/// A stored property that reads a features property from the features it belongs to, on every read.
///
/// The features are those given to ``init(_:in:file:line:)``, or else the task's current features
/// (``Features/withCurrent(_:)-(()throws->R)``) when the wrapper is initialised, or else when it is
/// read. Each read gives the property's value there now, so it follows sets on the branch and its
/// ancestors.
///
/// Outside any features (none given, and no current ones), or through features whose branch was
/// released, a read gives the property's ``FeaturesProperty/defaultValue`` and reports the misuse
/// with Arbor's diagnostic, whose "requested at" is the declaration (a test failure in tests,
/// standard error otherwise). Use the projected value to handle it instead: `try $timeout.value()`.
///
/// ```swift
/// struct Handler {
///   @Property(RequestTimeout.self) var timeout  // from Features.current() where the handler is made
///
///   func handle() async throws {
///     try await client.send(request, timeout: timeout)
///   }
/// }
/// ```
@propertyWrapper
public struct Property<P: FeaturesProperty>: Sendable {
  private let features: Features?
  private let location: SourceLocation

  /// A property read from `features`, or from the task's current features.
  ///
  /// ```swift
  /// @Property(RequestTimeout.self) var timeout
  /// ```
  ///
  /// - Parameters:
  ///   - property: The features property to read.
  ///   - features: The features to read it from; `nil` for the task's current features.
  ///   - file: The declaration's file; captured for you.
  ///   - line: The declaration's line; captured for you.
  public init(_ property: P.Type, in features: Features? = nil, file: StaticString = #fileID, line: UInt = #line) {
    self.features = features ?? Features.currentInTask
    location = SourceLocation(fileID: file, line: line)
  }

  /// The property's value now; on failure, reported, and the default value.
  public var wrappedValue: P.Value {
    do {
      return try value()
    } catch {
      IssueReporting.report(Diagnostic(describing: error), severity: .failure)
      return P.defaultValue
    }
  }

  /// The property wrapper itself, for ``value()`` and ``observe()``: `try $timeout.value()`.
  public var projectedValue: Property<P> { self }

  /// The property's value now, throwing Arbor's errors.
  ///
  /// ```swift
  /// let timeout = try $timeout.value()
  /// ```
  ///
  /// - Returns: The value on the branch of the features.
  /// - Throws: ``CurrentFeaturesUndefined`` when there are no features to read from;
  ///   ``FeaturesReleased``.
  public func value() throws -> P.Value {
    try resolvedFeatures().value(of: P.self, at: location)
  }

  /// Follows the property's value: see ``Features/observe(_:file:line:)``.
  ///
  /// ```swift
  /// for await timeout in $timeout.observe() { client.timeout = timeout }
  /// ```
  ///
  /// - Returns: The current value, then every change, until the branch is released.
  /// - Throws: ``CurrentFeaturesUndefined`` when there are no features to read from.
  public func observe() throws -> AsyncStream<P.Value> {
    try resolvedFeatures().observe(P.self, file: location.fileID, line: location.line)
  }

  private func resolvedFeatures() throws -> Features {
    try features ?? Features.current(file: location.fileID, line: location.line)
  }
}
