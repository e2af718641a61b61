import Arbor

extension Features {
  /// The teardowns this test container's branches ran as they closed, in the order they ran.
  ///
  /// Branches of a test container close like real ones (``/Arbor/Features/close(file:line:isolation:)``), and
  /// a loader run with ``load(_:context:file:line:)-994eq`` is torn down when the container's branch it
  /// ran in closes. Any branch of the container lists every teardown of the container.
  ///
  /// ```swift
  /// let database: Database = try await features.load(Database.live())
  /// try await features.close()
  /// #expect(features.tornDown.map(\.name) == ["Database"])
  /// ```
  ///
  /// Empty, after reporting the misuse, for features that are not a test container's.
  public var tornDown: [TornDown] {
    testOverrides(for: "list what was torn down", file: #fileID, line: #line)?.tornDown ?? []
  }
}
