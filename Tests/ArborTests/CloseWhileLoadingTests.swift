import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Foundation
import Testing

/// Loads in flight when `close()` starts finish (or fail) and are then torn down; `close()` waits.
/// Closes, requests and loads race without crashing, leaking or tearing anything down twice.
@Suite(.timeLimit(.minutes(5))) struct CloseWhileLoadingTests {
  @Test func closeWaitsForASynchronousLoadInFlightAndTearsItDown() async throws {
    let log = Collected<String>()
    let started = Flag()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          started.raise()
          _ = release.wait()
          log.append("up pool")
          return Pool(name: "slow")
        } teardown: { _ in
          log.append("down pool")
        })
    }
    let loaded = Collected<String>()
    let loader = Thread { loaded.append((try? root.instance(of: Pool.self).name) ?? "failed") }
    loader.start()
    #expect(await started.suspendUntilRaised())
    async let closed: Void = root.close()
    #expect(await eventually { root.waits.closesForLoads == 1 })  // the close waits for the load in flight
    release.raise()
    try await closed
    #expect(log.all == ["up pool", "down pool"])
    #expect(await eventually { loaded.all == ["slow"] })  // the load in flight finished for its requester
  }

  @Test func closeWaitsForAMultitonLoadInFlight() async throws {
    let log = Collected<String>()
    let started = Flag()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, _) in
          started.raise()
          _ = release.wait()
          log.append("up connection \(id)")
          return Connection(id: id)
        } teardown: { connection in
          log.append("down connection \(connection.id)")
        })
    }
    let loader = Thread { _ = try? root.instance(of: Connection.self, context: 4) }
    loader.start()
    #expect(await started.suspendUntilRaised())
    async let closed: Void = root.close()
    #expect(await eventually { root.waits.closesForLoads == 1 })  // the close waits for the load in flight
    release.raise()
    try await closed
    #expect(log.all == ["up connection 4", "down connection 4"])
  }

  @Test func closeWaitsForAnAsyncLoadInFlightAndTearsItDown() async throws {
    let log = Collected<String>()
    let started = Flag()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ async throws in
          started.raise()
          _ = await release.suspendUntilRaised()
          log.append("up pool")
          return Pool(name: "async")
        } teardown: { _ in
          log.append("down pool")
        })
    }
    async let requested = root.instance(of: Pool.self)
    #expect(await started.suspendUntilRaised())
    async let closed: Void = root.close()
    #expect(await eventually { root.waits.closesForLoads == 1 })  // the close waits for the load in flight
    release.raise()
    try await closed
    #expect(log.all == ["up pool", "down pool"])
    #expect(try await requested.name == "async")
  }

  @Test func aLoadInFlightThatFailsIsNotTornDown() async throws {
    let log = Collected<String>()
    let started = Flag()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ async throws -> Pool in
          started.raise()
          _ = await release.suspendUntilRaised()
          throw Boom()
        } teardown: { _ in
          log.append("down pool")
        })
    }
    let requested = Task { try await root.instance(of: Pool.self) }
    #expect(await started.suspendUntilRaised())
    async let closed: Void = root.close()
    #expect(await eventually { root.waits.closesForLoads == 1 })  // the close waits for the load in flight
    release.raise()
    try await closed
    await #expect(throws: FeatureLoadingFailed.self) { try await requested.value }
    #expect(log.all == [])
  }

  @Test func closesRequestsAndLoadsRacingTearEachInstanceDownOnce() async throws {
    for round in 0..<20 {
      let log = Collected<String>()
      let root = FeaturesRoot { registry in
        registry.defineScope(SessionScope.self) { registry in
          registry.use(resource(log, { Pool(name: "pool") }, named: "pool"))
          registry.use(asyncResource(log, { Cache(name: "cache") }, named: "cache"))
          registry.use(connections(log))
          registry.defineScope(TaskScope.self) { registry in
            registry.use(resource(log, { Journal(name: "journal") }, named: "journal"))
          }
        }
      }
      let session = try root.branch(SessionScope.self, context: Session(user: "u\(round)"))
      await withTaskGroup(of: Void.self) { group in
        for worker in 0..<4 {
          group.addTask {
            for step in 0..<20 {
              _ = try? await session.instance(of: Cache.self)
              _ = try? synchronously { try session.instance(of: Pool.self) }
              _ = try? synchronously { try session.instance(of: Connection.self, context: (worker + step) % 3) }
              if step % 2 == 0 {
                _ = try? await session.withBranch(TaskScope.self, context: "\(worker)") { task in
                  try synchronously { try task.instance(of: Journal.self) }
                }
              } else if let task = try? session.branch(TaskScope.self, context: "\(worker)") {
                // Not closed by hand: the session's close reaches it, or it fails to be made.
                _ = try? synchronously { try task.instance(of: Journal.self) }
                try? await task.close()
              }
            }
          }
        }
        group.addTask {
          await Task.yield()
          try? await session.close()
        }
      }
      try await session.close()
      // Every instance that came up went down once, after it came up.
      let entries = log.all
      let ups = entries.filter { $0.hasPrefix("up ") }.map { $0.dropFirst(3) }
      let downs = entries.filter { $0.hasPrefix("down ") }.map { $0.dropFirst(5) }
      #expect(ups.sorted() == downs.sorted(), "round \(round)")
      #expect(throws: FeaturesClosed.self) { try synchronously { try session.instance(of: Pool.self) } }
    }
  }

  @Test func closingAndBranchingRacingLeaveNoOpenBranchBelowAClosedOne() async throws {
    for _ in 0..<50 {
      let root = FeaturesRoot { registry in
        registry.defineScope(SessionScope.self) { registry in registry.defineScope(TaskScope.self) { _ in } }
      }
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let made = Collected<Features>()
      async let branching: Void = {
        for index in 0..<50 {
          if let task = try? session.branch(TaskScope.self, context: "\(index)") { made.append(task) }
        }
      }()
      try await session.close()
      await branching
      // A branch made before the close is closed with it; none can be made after.
      for task in made.all {
        #expect(throws: FeaturesClosed.self) { try synchronously { try task.context(for: TaskScope.self) } }
      }
    }
  }
}
