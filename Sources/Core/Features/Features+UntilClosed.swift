extension Features {
  /// A stream that finishes when this branch is closed or released: at once if it already is.
  ///
  /// For integrations whose work lives as long as a tree (a configuration watch): unlike
  /// `observe(_:)`, a closed or released branch is no misuse here. The stream yields one value when
  /// it starts, and never keeps the branch alive.
  ///
  /// - Parameters:
  ///   - file: Where it is asked; captured for you.
  ///   - line: Where it is asked; captured for you.
  /// - Returns: The stream.
  @_spi(Integrations)
  public func untilClosed(file: StaticString = #fileID, line: UInt = #line) -> AsyncStream<Void> {
    let finished = AsyncStream<Void> { $0.finish() }
    let stream = try? withBranch(at: SourceLocation(fileID: file, line: line)) { branch in
      if branch.isClosed { return finished }
      let stream = branch.properties.observe(BranchLifetime.self, in: branch)
      // A close that marked the branch meanwhile may have finished the streams before this one.
      if branch.isClosed { branch.properties.finishObservers() }
      return stream
    }
    return stream ?? finished  // `nil`: released
  }
}

/// A property nobody sets: its stream on a branch lasts as long as the branch is open.
private enum BranchLifetime: FeaturesProperty {
  static var defaultValue: Void { () }
}
