import Arbor
import Foundation
import Testing

/// Races found in review, each once a bug: they must keep passing.
@Suite struct ConcurrencyRegressionTests {
  @Test func aFinishedLoadLeftInTheWaitGraphIsNotMistakenForACycle() throws {
    for _ in 0..<100 {
      let bStarted = Flag()
      let aWaitsForB = Flag()
      let root = FeaturesRoot { registry in
        registry.use(
          .cacheable { features in
            aWaitsForB.raise()
            _ = try features.instance(of: Beta.self)
            return Alpha()
          })
        registry.use(
          .cacheable { _ in
            bStarted.raise()
            _ = aWaitsForB.wait()
            usleep(200)  // let thread 0 start waiting for this load
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
    }
  }

  @Test func asyncLoadsWaitingForEachOtherThroughANestedLoadFail() async throws {
    struct C: CacheableFeature { static var placeholder: C { C() } }
    let aStarted = Flag()
    let bStarted = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features async throws in
          aStarted.raise()
          _ = await bStarted.suspendUntilRaised()
          _ = try await features.instance(of: C.self)
          return Alpha()
        })
      registry.use(
        .cacheable { features async throws in
          _ = try await features.instance(of: Beta.self)
          return C()
        })
      registry.use(
        .cacheable { features async throws in
          bStarted.raise()
          _ = await aStarted.suspendUntilRaised()
          try await Task.sleep(for: .milliseconds(20))  // let A's load reach C and wait for B
          _ = try await features.instance(of: Alpha.self)
          return Beta()
        })
    }
    let outcomes = try await withTimeout {
      let alpha = Task { try await root.instance(of: Alpha.self) }
      let beta = Task { try await root.instance(of: Beta.self) }
      return [await alpha.result.isFailure, await beta.result.isFailure]
    }
    #expect(outcomes == [true, true])
  }

  @Test func asyncLoadsWaitingForEachOtherThroughADisposableFail() async throws {
    struct D: DisposableFeature { static var placeholder: D { D() } }
    let aStarted = Flag()
    let bStarted = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features async throws in
          aStarted.raise()
          _ = await bStarted.suspendUntilRaised()
          _ = try await features.instance(of: D.self)
          return Alpha()
        })
      registry.use(
        .disposable { features async throws in
          _ = try await features.instance(of: Beta.self)
          return D()
        })
      registry.use(
        .cacheable { features async throws in
          bStarted.raise()
          _ = await aStarted.suspendUntilRaised()
          try await Task.sleep(for: .milliseconds(20))
          _ = try await features.instance(of: Alpha.self)
          return Beta()
        })
    }
    let outcomes = try await withTimeout {
      let alpha = Task { try await root.instance(of: Alpha.self) }
      let beta = Task { try await root.instance(of: Beta.self) }
      return [await alpha.result.isFailure, await beta.result.isFailure]
    }
    #expect(outcomes == [true, true])
  }

  @Test func anAsyncRequestForAConflictingFeatureThrowsTheConflict() async throws {
    var built: Features?
    withKnownIssue(isIntermittent: true) {  // the conflict is also reported as the root is built
      built = FeaturesRoot { registry in
        registry.use(.cacheable(implementation: "first") { _ async in Counter(name: "first", serial: 1) })
        registry.use(.cacheable(implementation: "second") { _ async in Counter(name: "second", serial: 2) })
      }
    }
    let root = try #require(built)
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

/// Runs `body`, failing the test instead of hanging if it takes longer than `seconds`.
func withTimeout<R: Sendable>(
  seconds: Double = 10, _ body: @escaping @Sendable () async throws -> R
) async throws -> R {
  try await withThrowingTaskGroup(of: R?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))
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
