import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// A branch released without `close()` while it caches instances with a teardown reports
/// `TeardownSkipped` through the issue reporter, naming them; nothing runs implicitly.
@Suite struct DroppedBranchTests {
  @Test func droppingABranchWithTeardownsReportsThemAndRunsNone() throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Pool(name: "pool") }, named: "pool"))
        registry.use(resource(log, { Cache(name: "cache") }, named: "cache"))
        registry.use(.cacheable { _ in Journal(name: "no teardown") })
      }
    }
    let (_, reports) = try IssueReporting.capturingReports {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      _ = try session.instance(of: Pool.self)
      _ = try session.instance(of: Journal.self)
      _ = try session.instance(of: Cache.self)
    }
    #expect(log.all == ["up pool", "up cache"])
    #expect(reports.map(\.kind) == ["TeardownSkipped"])
    let skipped = try #require(reports.first).diagnostic
    #expect(skipped.notes.map(\.value).first?.components(separatedBy: "\n").count == 2)
    // Newest first.
    #expect(skipped.notes.first?.value.hasPrefix("Cache (Cache.live() at ArborTests/DroppedBranchTests.swift:") == true)
  }

  @Test func droppingABranchWithoutTeardownsOrAClosedOneReportsNothing() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Pool(name: "pool") }, named: "pool"))
        registry.use(.cacheable { _ in Journal(name: "no teardown") })
      }
    }
    let (_, reports) = try await IssueReporting.capturingReports {
      let plain = try root.branch(SessionScope.self, context: Session(user: "ann"))
      _ = try synchronously { try plain.instance(of: Journal.self) }
      let closed = try root.branch(SessionScope.self, context: Session(user: "bob"))
      _ = try synchronously { try closed.instance(of: Pool.self) }
      try await closed.close()
    }
    #expect(reports.isEmpty)
    #expect(log.all == ["up pool", "down pool"])
  }

  @Test func aTetheredBranchOutlivingItsParentReportsItsSkippedTeardownsWhenDropped() throws {
    struct Worker: CacheableFeature {
      var task: Features
      static var placeholder: Worker { Worker(task: FeaturesRoot { _ in }) }
    }
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { features in Worker(task: try features.branch(TaskScope.self, context: "bg")) })
        registry.defineScope(TaskScope.self) { registry in
          registry.use(resource(log, { Journal(name: "task") }, named: "journal"))
        }
      }
    }
    let (_, reports) = try IssueReporting.capturingReports {
      var worker: Worker?
      do {
        let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
        worker = try session.instance(of: Worker.self)
        _ = try worker?.task.instance(of: Journal.self)
      }
      // The session is gone (the worker's branch does not keep it); then the worker's branch goes.
      worker = nil
      _ = worker
    }
    #expect(reports.map(\.kind) == ["TeardownSkipped"])
    #expect(log.all == ["up journal"])
  }
}
