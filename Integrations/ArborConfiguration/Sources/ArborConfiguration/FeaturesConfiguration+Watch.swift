@_spi(Integrations) import Arbor
import Configuration

extension FeaturesConfiguration {
  /// Follows the providers' changes until `root` closes: each change replaces the values of the
  /// properties read from this configuration, and reaches `observe(_:)` on every branch that reads
  /// them.
  ///
  /// Run it beside the server (in its task group, or a task you keep). It returns when `root` closes
  /// or the task is cancelled (at once if the root is already closed), and throws what a provider's
  /// watch throws. A provider that does not
  /// change (the environment, a `FileProvider`) watches nothing; a `MutableInMemoryProvider`, or a
  /// `ReloadingFileProvider` (swift-configuration's `Reloading` trait), does. A reloaded value that
  /// does not parse is reported (``ConfigurationValueInvalid``) and the property keeps the value
  /// it had.
  ///
  /// ```swift
  /// let watching = Task { try await configuration.watch(until: root) }
  /// // ...
  /// try await root.close()   // the watch returns
  /// ```
  ///
  /// - Parameter root: The tree whose life bounds the watch; usually the root the properties were
  ///   configured in.
  /// - Throws: What a provider's watch throws.
  public func watch(until root: Features) async throws {
    // The stream finishes when the root is closed or released, and never keeps it alive.
    let lifetime = root.untilClosed()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        for await _ in lifetime {}
      }
      group.addTask {
        try await self.reader.watchSnapshot { updates in
          for await snapshot in updates { self.apply(snapshot) }
        }
      }
      // The first to end (the root closed, or the watch failed) ends the other.
      defer { group.cancelAll() }
      try await group.next()
    }
  }
}
