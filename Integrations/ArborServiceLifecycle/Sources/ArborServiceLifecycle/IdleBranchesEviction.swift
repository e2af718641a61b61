import Arbor
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that closes the idle branches of a `KeyedBranches` on a
/// timer, so a session nobody uses is closed on time even when no request comes to evict it.
///
/// ```swift
/// let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: .seconds(900)) { … }
/// let group = ServiceGroup(services: [server, IdleBranchesEviction(sessions, every: .seconds(60))], logger: logger)
/// ```
public struct IdleBranchesEviction<Key: Hashable & Sendable, Scope: FeaturesScope>: Service, CustomStringConvertible {
  /// The branches whose idle ones are closed.
  public let branches: KeyedBranches<Key, Scope>
  /// How often it looks.
  public let interval: Duration

  /// A service that evicts the idle branches of `branches` every `interval`.
  ///
  /// - Parameters:
  ///   - branches: The branches; their `idleTime` says which are idle.
  ///   - interval: How often to look.
  public init(_ branches: KeyedBranches<Key, Scope>, every interval: Duration) {
    self.branches = branches
    self.interval = interval
  }

  /// The service as a service group names it in its log: the scope of its branches and how often
  /// it looks.
  ///
  /// ```swift
  /// print(IdleBranchesEviction(sessions, every: .seconds(60)))
  /// // IdleBranchesEviction(SessionScope every 60.0 seconds)
  /// ```
  public var description: String { "IdleBranchesEviction(\(Scope.self) every \(interval))" }

  /// Evicts idle branches every ``interval`` until graceful shutdown or cancellation.
  public func run() async throws {
    do {
      try await cancelWhenGracefulShutdown {
        while true {
          try await Task.sleep(for: interval)
          await branches.evictIdle()
        }
      }
    } catch is CancellationError {
      // Shutting down: closing the tree closes what is left.
    }
  }
}
