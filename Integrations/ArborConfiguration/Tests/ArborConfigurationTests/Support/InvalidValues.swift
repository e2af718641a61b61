import ArborConfiguration
import Synchronization

/// Keeps the invalid values a configuration reports, in order, rendered; `reports` yields each as it
/// comes, for a test to wait on.
final class InvalidValues: Sendable {
  private let values = Mutex<[String]>([])
  let reports: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation

  init() {
    (reports, continuation) = AsyncStream.makeStream()
  }

  var handler: @Sendable (ConfigurationValueInvalid) -> Void {
    { invalid in
      let text = String(reflecting: invalid)
      self.values.withLock { $0.append(text) }
      self.continuation.yield(text)
    }
  }

  var rendered: [String] {
    values.withLock { $0 }
  }
}
