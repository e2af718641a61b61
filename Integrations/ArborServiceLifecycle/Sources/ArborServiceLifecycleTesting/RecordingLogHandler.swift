import Logging
import Synchronization

/// A swift-log handler that keeps every entry, for tests that assert what a server logged.
///
/// Give the application (or a `LoggingIssueReporter`, or a `FeaturesService`) a logger from
/// ``Entries/logger(label:level:)``, run the test, then read ``Entries/all``: each entry with its
/// level, its message and its metadata, the handler's and the call's merged as swift-log merges
/// them.
///
/// ```swift
/// let entries = RecordingLogHandler.Entries()
/// try await Application(router: router, logger: entries.logger()).test(.router) { client in
///   _ = try await client.execute(uri: "/todos", method: .get)
/// }
/// #expect(entries.all.contains { $0.message == "todos opened" })
/// ```
public struct RecordingLogHandler: LogHandler {
  /// One log entry as the handler received it.
  public struct Entry: Sendable {
    /// The entry's level.
    public var level: Logger.Level
    /// The entry's message, rendered.
    public var message: String
    /// The logger's metadata merged with the call's; the call's wins on a shared key.
    public var metadata: Logger.Metadata
  }

  /// The entries of every logger made from one set, in the order they were logged.
  ///
  /// ```swift
  /// let entries = RecordingLogHandler.Entries()
  /// entries.logger().info("started")
  /// #expect(entries.all.map(\.message) == ["started"])
  /// ```
  public final class Entries: Sendable {
    private let entries = Mutex<[Entry]>([])

    /// An empty set of entries.
    public init() {}

    /// The entries so far.
    public var all: [Entry] { entries.withLock { $0 } }

    /// A logger whose entries land here.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - level: The lowest level it logs.
    /// - Returns: The logger.
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
      var logger = Logger(label: label) { _ in RecordingLogHandler(entries: self) }
      logger.logLevel = level
      return logger
    }

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
  }

  /// Where this handler's entries land.
  public let entries: Entries
  /// The handler's metadata, merged into every entry.
  public var metadata: Logger.Metadata = [:]
  /// The lowest level the handler logs.
  public var logLevel: Logger.Level = .trace

  /// A handler whose entries land in `entries`; ``Entries/logger(label:level:)`` makes a logger
  /// with one.
  ///
  /// - Parameter entries: Where its entries land.
  public init(entries: Entries) {
    self.entries = entries
  }

  /// One key of the handler's metadata.
  ///
  /// - Parameter key: The key.
  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  /// Keeps the entry, with the handler's metadata merged into the call's.
  ///
  /// - Parameter event: The entry as swift-log passes it.
  public func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
    entries.append(Entry(level: event.level, message: "\(event.message)", metadata: merged))
  }
}
