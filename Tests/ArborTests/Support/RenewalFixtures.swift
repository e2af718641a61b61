import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Synchronization

/// One instance a renewal test follows: its label (feature, session, task, context), which load of
/// that label made it, and whether its teardown started.
final class Life: Sendable {
  let label: String
  let serial: Int
  private let teardowns = Atomic<Int>(0)
  /// The ledger's tick at which the first teardown started; `0` before.
  private let tornDownTick = Atomic<Int>(0)
  /// Counted while alive, for the leak tests.
  private let object: LiveObjects.Object

  init(label: String, serial: Int, live: LiveObjects) {
    self.label = label
    self.serial = serial
    object = LiveObjects.Object(live)
  }

  /// Whether its teardown started: a request must never receive such an instance.
  var isTornDown: Bool { teardowns.load(ordering: .acquiring) > 0 }

  /// Marks the teardown started at `tick`; how many times it was, this one included.
  func tearDown(at tick: Int) -> Int {
    _ = tornDownTick.compareExchange(expected: 0, desired: tick, ordering: .sequentiallyConsistent)
    return teardowns.add(1, ordering: .acquiringAndReleasing).newValue
  }

  /// Whether its teardown started before `tick`: a request that began at `tick` and received this
  /// instance received one whose teardown had started.
  func wasTornDown(before tick: Int) -> Bool {
    let torn = tornDownTick.load(ordering: .sequentiallyConsistent)
    return torn != 0 && torn < tick
  }

  /// `Client@ann 2`: the label and the serial.
  var name: String { "\(label) \(serial)" }
}

/// A cacheable feature of the renewal tests: an instance is its ``Life``.
protocol Followed: CacheableFeature {
  var life: Life { get }
  init(life: Life)
}

extension Followed {
  static var placeholder: Self { Self(life: Life(label: "placeholder", serial: -1, live: LiveObjects())) }
  var serial: Int { life.serial }
}

// The features of the renewal tests: a credential in the root, the clients built on it in
// sessions, and what is built on those in tasks below; others that use none of them.
struct Credential: Followed { let life: Life }
struct Settings: Followed { let life: Life }
struct ApiClient: Followed { let life: Life }
struct Sidecar: Followed { let life: Life }
struct SessionKey: Followed { let life: Life }
struct Mirror: Followed { let life: Life }
struct Uploader: Followed { let life: Life }
struct TaskNote: Followed { let life: Life }
/// Multitons: one per id.
struct Mailbox: Followed {
  typealias Context = Int
  let life: Life
}
struct Inbox: Followed {
  typealias Context = Int
  let life: Life
}
struct Quota: Followed {
  typealias Context = Int
  let life: Life
}

/// A disposable built on whatever its loader requests: a cacheable built from it is built from that.
struct Relay: DisposableFeature {
  var credential: Int
  static var placeholder: Relay { Relay(credential: -1) }
}

/// What the loaders and teardowns of one renewal test did: the log (`up Client@ann 1`,
/// `down Client@ann 1`), the loads of each label, the instances alive, and teardowns that ran twice.
final class RenewalLedger: Sendable {
  let log = Collected<String>()
  let live = LiveObjects()
  let doubleTeardowns = Collected<String>()
  /// `down <name>` of every teardown as it runs: what a test awaits of teardowns no call returns.
  let teardowns: AsyncStream<String>
  private let tornDown: AsyncStream<String>.Continuation
  private let serials = Lock<[String: Int]>.make([:])
  private let ticks = Atomic<Int>(0)

  /// The next tick: requests take one as they begin, teardowns as they start, so that a request
  /// can tell whether the instance it received was being torn down before it began.
  func tick() -> Int { ticks.add(1, ordering: .sequentiallyConsistent).newValue }

  init() {
    (teardowns, tornDown) = AsyncStream.makeStream()
  }

  /// Made by a loader: the next serial of the label of `feature` in `features`, for `context`.
  func make<F: Followed>(_ feature: F.Type, context: F.Context? = nil, in features: Features) -> F {
    var label = "\(F.self)"
    if let session = try? features.context(ifPresent: SessionScope.self) { label += "@\(session.user)" }
    if let task = try? features.context(ifPresent: TaskScope.self) { label += "/\(task)" }
    if let context, !(context is NoContext) { label += "(\(context))" }
    let serial = serials.withLock { serials in
      serials[label, default: 0] += 1
      return serials[label]!
    }
    log.append("up \(label) \(serial)")
    return F(life: Life(label: label, serial: serial, live: live))
  }

  /// A teardown: marks the instance torn down and logs it; throws `Closed` when `throwing`.
  func tearDown(_ instance: some Followed, throwing: Bool = false) throws {
    if instance.life.tearDown(at: tick()) > 1 { doubleTeardowns.append(instance.life.name) }
    log.append("down \(instance.life.name)")
    tornDown.yield("down \(instance.life.name)")
    if throwing { throw Closed(name: instance.life.name) }
  }

  /// Instances requests received after their teardown had started: none, ever.
  let staleReceipts = Collected<String>()

  /// Makes a request, noting its instance in ``staleReceipts`` if its teardown started before the
  /// request began.
  func receive<F: Followed>(_ request: () throws -> F) rethrows -> F {
    let began = tick()
    let instance = try request()
    if instance.life.wasTornDown(before: began) { staleReceipts.append(instance.life.name) }
    return instance
  }

  /// The async form of ``receive(_:)``.
  func receive<F: Followed>(_ request: () async throws -> F) async rethrows -> F {
    let began = tick()
    let instance = try await request()
    if instance.life.wasTornDown(before: began) { staleReceipts.append(instance.life.name) }
    return instance
  }

  /// How many times the loader of `label` ran.
  func loads(_ label: String) -> Int { serials.withLock { $0[label] ?? 0 } }

  /// The log's entries that start with `prefix` (`down `).
  func entries(_ prefix: String) -> [String] { log.all.filter { $0.hasPrefix(prefix) } }

  /// A cacheable loader named `live()` that requests what `uses` requests first.
  func cacheable<F: Followed>(
    _ feature: F.Type, timeToLive: Duration? = nil, throwing: Bool = false,
    uses: @escaping @Sendable (Features) throws -> Void = { _ in },
    file: StaticString = #fileID, line: UInt = #line
  ) -> FeatureLoader where F.Context == NoContext {
    .cacheable(implementation: "live()", file: file, line: line, timeToLive: timeToLive) { features in
      try uses(features)
      return self.make(F.self, in: features)
    } teardown: { instance in
      try self.tearDown(instance, throwing: throwing)
    }
  }

  /// The async form of ``cacheable(_:timeToLive:throwing:uses:)``: it suspends before it loads and
  /// before it tears down.
  func asyncCacheable<F: Followed>(
    _ feature: F.Type, timeToLive: Duration? = nil, throwing: Bool = false,
    uses: @escaping @Sendable (Features) async throws -> Void = { _ in },
    file: StaticString = #fileID, line: UInt = #line
  ) -> FeatureLoader where F.Context == NoContext {
    .cacheable(implementation: "live()", file: file, line: line, timeToLive: timeToLive) { features async throws in
      await Task.yield()
      try await uses(features)
      return self.make(F.self, in: features)
    } teardown: { instance in
      await Task.yield()
      try self.tearDown(instance, throwing: throwing)
    }
  }

  /// A multiton loader named `live()`, one instance per id, that requests what `uses` requests first.
  func multiton<F: Followed>(
    _ feature: F.Type, timeToLive: Duration? = nil,
    uses: @escaping @Sendable (Int, Features) throws -> Void = { _, _ in },
    file: StaticString = #fileID, line: UInt = #line
  ) -> FeatureLoader where F.Context == Int {
    .cacheable(implementation: "live()", file: file, line: line, timeToLive: timeToLive) {
      (id: Int, features: Features) in
      try uses(id, features)
      return self.make(F.self, context: id, in: features)
    } teardown: { instance in
      try self.tearDown(instance)
    }
  }

  /// Inboxes per id, each built on the mailbox of that id: loaded by an async loader when `async`.
  func inboxes(async: Bool, file: StaticString = #fileID, line: UInt = #line) -> FeatureLoader {
    guard async else {
      return multiton(
        Inbox.self, uses: { id, features in _ = try features.instance(of: Mailbox.self, context: id) }, file: file,
        line: line)
    }
    return asyncMultiton(
      Inbox.self, uses: { id, features in _ = try await features.instance(of: Mailbox.self, context: id) },
      file: file, line: line)
  }

  /// The async form of ``multiton(_:timeToLive:uses:)``.
  func asyncMultiton<F: Followed>(
    _ feature: F.Type, timeToLive: Duration? = nil,
    uses: @escaping @Sendable (Int, Features) async throws -> Void = { _, _ in },
    file: StaticString = #fileID, line: UInt = #line
  ) -> FeatureLoader where F.Context == Int {
    .cacheable(implementation: "live()", file: file, line: line, timeToLive: timeToLive) {
      (id: Int, features: Features) async throws in
      await Task.yield()
      try await uses(id, features)
      return self.make(F.self, context: id, in: features)
    } teardown: { instance in
      await Task.yield()
      try self.tearDown(instance)
    }
  }
}

/// Told of every renewal of a tree: kept, and streamed for tests that await one.
final class RenewalLog: FeaturesObserver {
  let events = Collected<RenewalEvent>()
  let stream: AsyncStream<RenewalEvent>
  private let continuation: AsyncStream<RenewalEvent>.Continuation

  init() {
    (stream, continuation) = AsyncStream.makeStream()
  }

  func renewed(_ renewal: RenewalEvent) {
    events.append(renewal)
    continuation.yield(renewal)
  }
}

/// The first `count` values of `stream`, failing the test (with what arrived) after `seconds`.
func first<Value: Sendable>(_ count: Int, of stream: AsyncStream<Value>, seconds: Double = 30) async throws -> [Value] {
  try await withTimeout(seconds: seconds) { await firstValues(count, of: stream) }
}

/// Runs `body` with the issue reports it (and the tasks it starts) makes streamed instead of reported.
func streamingReports<R>(
  _ body: (AsyncStream<IssueReporting.Report>) async throws -> R
) async rethrows -> R {
  let (reports, continuation) = AsyncStream<IssueReporting.Report>.makeStream()
  return try await IssueReporting.$capture.withValue(IssueReporting.Capture { continuation.yield($0) }) {
    try await body(reports)
  }
}

extension Array where Element == String {
  /// Whether `earlier` comes before `later` in the array (both present).
  func has(_ earlier: String, before later: String) -> Bool {
    guard let first = firstIndex(of: earlier), let second = firstIndex(of: later) else { return false }
    return first < second
  }
}
