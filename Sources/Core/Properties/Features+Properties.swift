extension Features {
  /// The value of a property on this branch; setting it sets it on this branch.
  ///
  /// Reading gives the value set on this branch, else the one set on the nearest ancestor that sets
  /// one, else the nearest registry value on the path (``FeaturesRegistry/set(_:to:file:line:)``),
  /// else the property's ``FeaturesProperty/defaultValue``. It never throws and never loads
  /// anything, and costs no more than reading a cached instance.
  ///
  /// Setting is seen by this branch and every branch below it that does not set its own value;
  /// siblings and ancestors never see it. Setting a value equal to the one already set on this
  /// branch changes nothing. Instances already loaded keep the values they were loaded with: follow
  /// changes with ``observe(_:file:line:)``.
  ///
  /// Through features whose branch was released or closed, reading gives the default and setting
  /// changes nothing; both report the misuse (``FeaturesReleased``, ``FeaturesClosed``: a test
  /// failure in tests, the issue reporter otherwise).
  ///
  /// ```swift
  /// let timeout = session[RequestTimeout.self]
  /// session[RequestTimeout.self] = .seconds(1)
  /// ```
  ///
  /// - Parameters:
  ///   - property: The property.
  ///   - file: Where it is read or set; captured for you.
  ///   - line: Where it is read or set; captured for you.
  @inlinable
  public subscript<P: FeaturesProperty>(
    _ property: P.Type, file file: StaticString = #fileID, line line: UInt = #line
  ) -> P.Value {
    @inline(__always) get {
      // Inlined, as a cached request is: user features read the branch's snapshot in place.
      if let branch = retainedBranch, let value = BranchProperties.peek(property, in: branch) { return value }
      return readProperty(property, at: SourceLocation(fileID: file, line: line))
    }
    nonmutating set {
      setProperty(property, to: newValue, at: SourceLocation(fileID: file, line: line))
    }
  }

  /// Reads a property the snapshot does not hold current, or through features that are not a
  /// user's.
  @usableFromInline
  func readProperty<P: FeaturesProperty>(_ property: P.Type, at location: SourceLocation) -> P.Value {
    do {
      return try value(of: property, at: location)
    } catch {
      IssueReporting.report(Self.propertyMisuse(read: "\(property)", error, at: location), severity: .failure)
      return P.defaultValue
    }
  }

  /// The value of a property on this branch, or ``FeaturesReleased``.
  func value<P: FeaturesProperty>(of property: P.Type, at location: SourceLocation) throws -> P.Value {
    if let branch = retainedBranch, let value = BranchProperties.peek(property, in: branch) { return value }
    return try withBranch(at: location) { branch in
      if branch.isClosed {
        throw FeaturesClosed(.using("the value of \(property)"), through: branch, requestedAt: location)
      }
      return branch.properties.value(property, in: branch)
    }
  }

  /// Sets a property on this branch, or reports why it cannot.
  @usableFromInline
  func setProperty<P: FeaturesProperty>(_ property: P.Type, to value: P.Value, at location: SourceLocation) {
    do {
      try withBranch(at: location) { branch in
        if branch.isClosed {
          throw FeaturesClosed(.using("the value of \(property)"), through: branch, requestedAt: location)
        }
        branch.properties.set(property, to: value, in: branch, at: location)
      }
    } catch {
      IssueReporting.report(
        Self.propertyMisuse(set: "\(property)", error, at: location), severity: .failure)
    }
  }

  /// Follows a property's value on this branch: the current value, then every change this branch
  /// sees.
  ///
  /// The stream yields the value as ``subscript(_:file:line:)`` reads it now, then, in order, every
  /// new value a set gives it here: sets on this branch, and sets on its ancestors that it does not
  /// shadow with its own. A set that leaves the value equal to the one last yielded yields nothing;
  /// values are compared when `P.Value` is `Equatable`, and a value that is not is yielded for every
  /// set that decides what the branch reads. It finishes when the branch is closed or released; the
  /// stream does not keep the branch alive. Through features whose branch was released, the stream
  /// finishes at once and the misuse is reported.
  ///
  /// ```swift
  /// for await timeout in session.observe(RequestTimeout.self) {
  ///   client.timeout = timeout
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - property: The property.
  ///   - file: Where it is observed; captured for you.
  ///   - line: Where it is observed; captured for you.
  /// - Returns: The values, as an unbounded `AsyncStream`.
  public func observe<P: FeaturesProperty>(
    _ property: P.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> AsyncStream<P.Value> {
    let location = SourceLocation(fileID: file, line: line)
    do {
      return try withBranch(at: location) { branch in
        if branch.isClosed {
          throw FeaturesClosed(.using("the value of \(property)"), through: branch, requestedAt: location)
        }
        let stream = branch.properties.observe(property, in: branch)
        // A close that marked the branch meanwhile may have finished the streams before this one.
        if branch.isClosed { branch.properties.finishObservers() }
        return stream
      }
    } catch {
      IssueReporting.report(Self.propertyMisuse(observe: "\(property)", error, at: location), severity: .failure)
      return AsyncStream { $0.finish() }
    }
  }

  /// The diagnostic of a property read through features that cannot reach their branch.
  static func propertyMisuse(read property: String, _ error: any Error, at location: SourceLocation) -> Diagnostic {
    propertyMisuse(error, "\(property) reads its default value", at: location)
  }

  static func propertyMisuse(set property: String, _ error: any Error, at location: SourceLocation) -> Diagnostic {
    propertyMisuse(error, "\(property) was not set", at: location)
  }

  static func propertyMisuse(observe property: String, _ error: any Error, at location: SourceLocation) -> Diagnostic {
    propertyMisuse(error, "\(property) cannot be observed", at: location)
  }

  /// `error`'s diagnostic, its message prefixed with what became of the property.
  private static func propertyMisuse(_ error: any Error, _ outcome: String, at location: SourceLocation) -> Diagnostic {
    var diagnostic = Diagnostic(describing: error)
    diagnostic.message = "\(outcome): \(diagnostic.message)"
    return diagnostic
  }
}
