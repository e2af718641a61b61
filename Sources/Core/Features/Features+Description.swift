extension Features: CustomStringConvertible {
  /// Where these features are in their tree: the scopes from the root to their branch, with each
  /// branch's context.
  ///
  /// ```swift
  /// print(session)  // Root › SessionScope(Session(user: "ann"))
  /// ```
  ///
  /// Features whose branch was released describe themselves as such.
  public var description: String {
    let location = SourceLocation(fileID: #fileID, line: #line)
    return (try? withBranch(at: location) { $0.path.rendered }) ?? "Features(released)"
  }
}
