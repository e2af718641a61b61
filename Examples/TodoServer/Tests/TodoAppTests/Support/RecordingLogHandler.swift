import Logging
import Synchronization

/// A log handler that keeps every entry, for tests that assert what was logged.
struct RecordingLogHandler: LogHandler {
  /// One log entry as the handler received it.
  struct Entry: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata
  }

  /// The entries of every logger made from one handler, in order.
  final class Entries: Sendable {
    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// The entries so far.
    var all: [Entry] { entries.withLock { $0 } }

    /// A logger whose entries land here.
    func logger(level: Logger.Level = .debug) -> Logger {
      var logger = Logger(label: "todo-server") { _ in RecordingLogHandler(entries: self) }
      logger.logLevel = level
      return logger
    }
  }

  let entries: Entries
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
    entries.append(Entry(level: event.level, message: "\(event.message)", metadata: merged))
  }
}
