import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Foundation
import Testing

/// A synchronous request, as synchronous code makes it (in an async context, Swift prefers the
/// `async` overload of `instance`).
func synchronously<F: Feature>(
  _ features: Features, _ feature: F.Type, context: F.Context, file: StaticString = #fileID, line: UInt = #line
) throws -> F {
  try features.instance(of: feature, context: context, file: file, line: line)
}

func synchronously<F: CacheableFeature>(
  _ features: Features, _ feature: F.Type, file: StaticString = #fileID, line: UInt = #line
) throws -> F where F.Context == NoContext {
  try features.instance(of: feature, file: file, line: line)
}

@Suite struct AsyncLoadingTests {
  @Test func aHundredConcurrentAsyncRequestsRunTheLoaderOnceWithoutBlockingThreads() async throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features async throws in
          // Suspends while the other requests arrive: if they blocked threads instead of
          // suspending, the cooperative pool would have none left to resume this load.
          try await Task.sleep(for: .milliseconds(50))
          return Counter(name: "async", serial: loads.next())
        })
    }
    let serials = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<100 { group.addTask { try await root.instance(of: Counter.self).serial } }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(serials == Array(repeating: 1, count: 100))
    #expect(loads.value == 1)
  }

  @Test func aSyncRequestForAnAsyncFeatureIsRejectedUntilItIsLoaded() async throws {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ async in Counter(name: "async", serial: 1) })
      registry.use(.disposable { (tag: String, _) async in Tagged(tag: tag) })
    }
    let line: UInt = #line + 1
    let error = #expect(throws: FeatureRequiresAwait.self) { try synchronously(root, Counter.self) }
    #expect(error?.feature == Counter.self)
    #expect(
      error?.description
        == "FeatureRequiresAwait: Counter is loaded asynchronously (ArborTests/AsyncLoadingTests.swift:\(line))")
    #expect(try await root.instance(of: Counter.self).serial == 1)
    #expect(try synchronously(root, Counter.self).serial == 1)  // loaded: served synchronously
    #expect(throws: FeatureRequiresAwait.self) { try synchronously(root, Tagged.self, context: "x") }
    #expect(try await root.instance(of: Tagged.self, context: "x").tag == "x")
  }

  @Test func cancellingOneRequesterStopsOnlyItsWaitAndTheLoadIsCachedForTheOthers() async throws {
    let loads = Tally()
    let started = Flag()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features async throws in
          loads.next()
          started.raise()
          _ = await release.suspendUntilRaised()
          return Counter(name: "finished", serial: 1)
        })
    }
    let cancelled = Task { try await root.instance(of: Counter.self) }
    let waiting = Task { try await root.instance(of: Counter.self) }
    #expect(await started.suspendUntilRaised())
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    release.raise()
    #expect(try await waiting.value.name == "finished")
    #expect(try await root.instance(of: Counter.self).name == "finished")
    #expect(loads.value == 1)
  }

  @Test func anAsyncLoadWhoseRequestersAllLeftStillFindsItsBranch() async throws {
    let started = Flag()
    let release = Flag()
    let finished = Flag()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features async throws in
            started.raise()
            _ = await release.suspendUntilRaised()
            // Every requester has gone and dropped the branch: the load's own task still holds it.
            let session = try features.context(for: SessionScope.self)
            finished.raise()
            return Counter(name: session.user, serial: 1)
          })
      }
    }
    let session = Lock<Features?>.make(try root.branch(SessionScope.self, context: Session(user: "ann")))
    let requester = Task { try await session.withLock { $0! }.instance(of: Counter.self) }
    #expect(await started.suspendUntilRaised())
    requester.cancel()
    await #expect(throws: CancellationError.self) { try await requester.value }
    session.withLock { $0 = nil }
    release.raise()
    #expect(await finished.suspendUntilRaised())
  }

  @Test func anAsyncLoaderThatRequestsItselfFailsWithTheWholePath() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features async throws in
          _ = try await features.instance(of: Beta.self)
          return Alpha()
        })
      registry.use(
        .cacheable { features async throws in
          _ = try await features.instance(of: Alpha.self)
          return Beta()
        })
    }
    let error = await #expect(throws: CircularDependency.self) { try await root.instance(of: Alpha.self) }
    #expect(error?.path.map { String(describing: $0) } == ["Alpha", "Beta", "Alpha"])
  }

  @Test func asyncLoadsThatWaitForEachOtherFailInsteadOfHanging() async throws {
    let alphaStarted = Flag()
    let betaStarted = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features async throws in
          alphaStarted.raise()
          _ = await betaStarted.suspendUntilRaised()
          _ = try await features.instance(of: Beta.self)
          return Alpha()
        })
      registry.use(
        .cacheable { features async throws in
          betaStarted.raise()
          _ = await alphaStarted.suspendUntilRaised()
          _ = try await features.instance(of: Alpha.self)
          return Beta()
        })
    }
    let alpha = Task { try await root.instance(of: Alpha.self) }
    let beta = Task { try await root.instance(of: Beta.self) }
    #expect(await alpha.result.isFailure)
    #expect(await beta.result.isFailure)
  }

  @Test func asyncLoadersSeeTheirBranchAndAsyncMultitonsLoadOncePerContext() async throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (id: Int, features) async throws in
            loads.next()
            let session = try features.context(for: SessionScope.self)
            return Account(id: id, serial: session.user.count)
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "anne"))
    let accounts = try await withThrowingTaskGroup(of: Account.self) { group in
      for index in 0..<20 { group.addTask { try await session.instance(context: index % 2) } }
      return try await group.reduce(into: [Account]()) { $0.append($1) }
    }
    #expect(Set(accounts.map(\.id)) == [0, 1])
    #expect(accounts.allSatisfy { $0.serial == 4 })
    #expect(loads.value == 2)
  }

  @Test func anAsyncFailureIsNotCached() async throws {
    let attempts = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ async throws in
          if attempts.next() == 1 { throw Boom() }
          return Counter(name: "second try", serial: 2)
        })
    }
    let error = await #expect(throws: FeatureLoadingFailed.self) { try await root.instance(of: Counter.self) }
    #expect(error?.cause is Boom)
    #expect(try await root.instance(of: Counter.self).name == "second try")
  }

  @Test func awaitedRequestsResolveSynchronousFeaturesToo() async throws {
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 3 }))
      registry.use(.cacheable { _ in Counter(name: "sync", serial: 1) })
    }
    let clock: Clock = try await root.instance()
    let counter: Counter = try await root.instance()
    #expect(clock.now() == 3)
    #expect(counter.name == "sync")
  }
}

extension Result {
  var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}
