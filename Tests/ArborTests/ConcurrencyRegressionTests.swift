import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Foundation
import Testing

/// Races found in review, each once a bug: they must keep passing.
@Suite struct ConcurrencyRegressionTests {
  @Test func aFinishedLoadLeftInTheWaitGraphIsNotMistakenForACycle() throws {
    for _ in 0..<100 {
      let bStarted = Flag()
      let aWaitsForB = Flag()
      let aWaited = Flag()
      let root = FeaturesRoot { registry in
        registry.use(
          .cacheable { features in
            aWaitsForB.raise()
            _ = try features.instance(of: Beta.self)
            return Alpha()
          })
        registry.use(
          .cacheable { features in
            bStarted.raise()
            _ = aWaitsForB.wait()
            // Until thread 0 waits for this load.
            if blockUntil({ features.waits.requestsForLoads == 1 }) { aWaited.raise() }
            return Beta()
          })
      }
      let failures = Collected<String>()
      onThreads(2) { index in
        do {
          if index == 0 {
            _ = bStarted.wait()
            _ = try root.instance(of: Alpha.self)
          } else {
            _ = try root.instance(of: Beta.self)
            // Thread 0 may still list its finished wait for Beta: requesting Alpha now must wait
            // for thread 0's load, not report a cycle.
            _ = try root.instance(of: Alpha.self)
          }
        } catch {
          failures.append("\(error)")
        }
      }
      #expect(failures.all == [])
      #expect(aWaited.isRaised)
    }
  }

  struct Nested: CacheableFeature { static var placeholder: Nested { Nested() } }
  struct Disposed: DisposableFeature { static var placeholder: Disposed { Disposed() } }

  /// Alpha's load waits, through `Middle`, for Beta's load, which waits for Alpha's: both fail.
  ///
  /// - Parameter waitsOnceAlphaWaitsForBeta: The requests then waiting for the root's loads: one
  ///   for each load's requesting task, one for Middle's load if it is cached, and Middle's for Beta.
  func loadsWaitingForEachOther<Middle: Feature>(
    through middle: Middle.Type, context: Middle.Context, waitsOnceAlphaWaitsForBeta: Int,
    _ loader: (@escaping @Sendable (Features) async throws -> Middle) -> FeatureLoader
  ) async throws -> [String] {
    let aStarted = Flag()
    let bStarted = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features async throws in
          aStarted.raise()
          _ = await bStarted.suspendUntilRaised()
          _ = try await features.instance(of: Middle.self, context: context)
          return Alpha()
        })
      registry.use(
        loader { features in
          _ = try await features.instance(of: Beta.self)
          return Middle.placeholder
        })
      registry.use(
        .cacheable { features async throws in
          bStarted.raise()
          _ = await aStarted.suspendUntilRaised()
          // Until Alpha's load reached Middle, which waits for Beta.
          #expect(await eventually { features.waits.requestsForLoads == waitsOnceAlphaWaitsForBeta })
          _ = try await features.instance(of: Alpha.self)
          return Beta()
        })
    }
    let results = try await withTimeout { () async throws -> [Result<Void, any Error>] in
      let alpha = Task { _ = try await root.instance(of: Alpha.self) }
      let beta = Task { _ = try await root.instance(of: Beta.self) }
      return [await alpha.result, await beta.result]
    }
    return results.map(Self.outcome)
  }

  static func outcome(_ result: Result<Void, any Error>) -> String {
    switch result {
    case .success: "loaded"
    case .failure(let error as FeatureLoadingFailed): "FeatureLoadingFailed(\(type(of: error.cause)))"
    case .failure(let error): "\(type(of: error))"
    }
  }

  @Test func asyncLoadsWaitingForEachOtherThroughANestedLoadFail() async throws {
    let outcomes = try await loadsWaitingForEachOther(
      through: Nested.self, context: NoContext(), waitsOnceAlphaWaitsForBeta: 4
    ) { .cacheable($0) }
    #expect(!outcomes.contains("loaded"))
    #expect(outcomes.contains("CircularDependency") || outcomes.contains("FeatureLoadingFailed(CircularDependency)"))
  }

  @Test func asyncLoadsWaitingForEachOtherThroughADisposableFail() async throws {
    let outcomes = try await loadsWaitingForEachOther(
      through: Disposed.self, context: (), waitsOnceAlphaWaitsForBeta: 3
    ) { .disposable($0) }
    #expect(!outcomes.contains("loaded"))
    #expect(outcomes.contains("CircularDependency") || outcomes.contains("FeatureLoadingFailed(CircularDependency)"))
  }

  @Test func anAsyncRequestForAConflictingFeatureThrowsTheConflict() async throws {
    let (root, reports) = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(.cacheable(implementation: "first") { _ async in Counter(name: "first", serial: 1) })
        registry.use(.cacheable(implementation: "second") { _ async in Counter(name: "second", serial: 2) })
      }
    }
    #expect(reports.map(\.diagnostic.kind) == ["FeatureRegistrationConflict"])  // reported as the root is built
    await #expect(throws: FeatureRegistrationConflict.self) { try await root.instance(of: Counter.self) }
  }

  struct Holder: CacheableFeature {
    @Resolved var clock: Clock
    var object: LiveObjects.Object
    static var placeholder: Holder { fatalError("not used") }
  }

  @Test func aLoaderNeverKeepsItsRequestersCurrentFeatures() throws {
    let live = LiveObjects()
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(
        .cacheable { features in
          // Loaded for a session, but registered at the root: it must see the root, not the session.
          let sees = (try? Features.current().context(for: SessionScope.self))?.user ?? "root"
          return Counter(name: sees, serial: 0)
        })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Holder(object: .init(live)) })
      }
    }
    do {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      try session.withCurrent {
        #expect(try session.instance(of: Counter.self).name == "root")
        let holder: Holder = try session.instance()
        #expect(holder.clock.now() == 1)
      }
      #expect(live.value == 1)
    }
    #expect(live.value == 0)  // the cached Holder's @Resolved did not keep the session alive
  }
}

extension ConcurrencyRegressionTests {
  @Test func anAsyncLoaderNeverSeesItsRequestersCurrentFeatures() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ async in
          let sees = (try? Features.current().context(for: SessionScope.self))?.user ?? "root"
          return Counter(name: sees, serial: 0)
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let counter = try await session.withCurrent { try await session.instance(of: Counter.self) }
    #expect(counter.name == "root")
  }
}

/// Runs `body`, failing the test instead of hanging if it takes longer than `seconds`.
func withTimeout<R: Sendable>(
  seconds: Double = 10, _ body: @escaping @Sendable () async throws -> R
) async throws -> R {
  try await withThrowingTaskGroup(of: R?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      // Counted in short sleeps, not read from the clock: while other tests hold the cooperative
      // pool's threads (tests that block on threads do, for tens of seconds under the thread
      // sanitizer), neither this timer nor `body` runs, and that wait must not count against it.
      for _ in 0..<Int(seconds * 20) { try await Task.sleep(for: .milliseconds(50)) }
      return nil
    }
    defer { group.cancelAll() }
    guard let result = try await group.next(), let value = result else {
      Issue.record("timed out after \(seconds) seconds: the loads hang")
      throw CancellationError()
    }
    return value
  }
}
