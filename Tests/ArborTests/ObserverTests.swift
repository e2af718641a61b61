import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Foundation
import Testing

@Suite struct ObserverTests {
  @Test func everyLoadIsReportedWithWhatWhereForWhomAndHowItEnded() throws {
    let profile = LoadProfile()
    let line = #line + 1
    let root = FeaturesRoot(observer: profile) { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(Printer.console())
      registry.use(.cacheable { _ -> Broken in throw Offline() })
      registry.defineScope(SessionScope.self) { registry in registry.use(Greeter.live()) }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try session.instance(of: Greeter.self)
    _ = try session.instance(of: Greeter.self)  // cached: no load
    #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Broken.self) }
    let loads = profile.loads
    #expect(
      loads.map(\.implementation) == [
        "Printer.console()", "Greeter.live()", "Broken.everyLoadIsReportedWithWhatWhereForWhomAndHowItEnded()",
      ])
    let printer = loads[0]
    #expect(printer.scope.map(\.name) == ["Root", "SessionScope"])  // a disposable loads in the requesting branch
    #expect(printer.path.map(\.feature) == ["Greeter", "Printer"])
    #expect(printer.path.last?.location?.fileID.description == "ArborDemoFeatures/Greeter.swift")
    #expect(loads[1].path.map(\.feature) == ["Greeter"])
    #expect(loads[1].registeredAt.line == UInt(line + 4))
    #expect(loads[1].duration >= printer.duration)
    #expect(loads[1].failure == nil)
    #expect(loads[2].failure?.kind == "FeatureLoadingFailed")
    #expect(loads[2].failure?.causes.map(\.kind) == ["Offline"])
  }

  @Test func asyncLoadsAreReportedToo() async throws {
    let profile = LoadProfile()
    // Durations are measured on the root's clock: the loader moves it, and nothing waits on the
    // wall clock.
    let clock = ManualClock()
    let root = FeaturesRoot(observer: profile, clock: clock) { registry in
      registry.use(
        .cacheable { _ async throws in
          await Task.yield()
          clock.advance(by: .milliseconds(2))
          return Slow()
        })
    }
    _ = try await root.instance(of: Slow.self)
    let load = try #require(profile.loads.first)
    #expect(profile.loads.count == 1)
    #expect(load.isAsync)
    #expect(load.duration == .milliseconds(2))
  }

  @Test func theReportIsATreeOfLoadsByWhoRequestedThemSlowestFirst() throws {
    let profile = LoadProfile()
    let clock = ManualClock()
    let root = FeaturesRoot(observer: profile, clock: clock) { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(Printer.console())
      registry.use(
        .cacheable { _ in
          // Slower than every load before it: the root's clock moves only here.
          clock.advance(by: .milliseconds(3))
          return Slow()
        })
      registry.defineScope(SessionScope.self) { registry in registry.use(Greeter.live()) }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try session.instance(of: Greeter.self)
    _ = try root.instance(of: Slow.self)
    #expect(profile.loads.map(\.duration) == [.zero, .zero, .milliseconds(3)])
    #expect(
      profile.report() == """
        3 loads, 3.00 ms at the top
        ├─ Slow.theReportIsATreeOfLoadsByWhoRequestedThemSlowestFirst() in Root: 3.00 ms
        └─ Greeter.live() in Root › SessionScope(Session(user: "ann")): 0.00 ms
           └─ Printer.console() in Root › SessionScope(Session(user: "ann")): 0.00 ms
        """)
    let trace = profile.chromeTrace()
    #expect(trace.hasPrefix(#"{"traceEvents":[{"name":"Slow."#))
    #expect(trace.components(separatedBy: #""ph":"X""#).count == 4)
    #expect(trace.contains(#""name":"Printer.console()","cat":"load","ph":"X""#))
  }

  @Test func branchesMadeInAnObservedTreeAreReported() throws {
    let branches = BranchLog()
    let root = FeaturesRoot(observer: branches) { registry in registry.defineScope(SessionScope.self) { _ in } }
    _ = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(branches.scopes == [["Root"], ["Root", "SessionScope"]])
  }

  @Test func concurrentLoadsAreAllRecorded() throws {
    let profile = LoadProfile()
    let root = FeaturesRoot(observer: profile) { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in registry.use(Greeter.live()) }
    }
    onThreads(8) { thread in
      for index in 0..<50 {
        let session = try? root.branch(SessionScope.self, context: Session(user: "\(thread)-\(index)"))
        _ = try? session?.instance(of: Greeter.self)
      }
    }
    #expect(profile.loads.count == 8 * 50 * 2)  // a Greeter and its Printer per session
    #expect(profile.report().hasPrefix("800 loads"))
  }
}

private struct Broken: CacheableFeature {
  static var placeholder: Broken { Broken() }
}

private struct Slow: CacheableFeature {
  static var placeholder: Slow { Slow() }
}

private struct Offline: DiagnosticError {
  var diagnostic: Diagnostic { Diagnostic(kind: "Offline", message: "the network is down") }
}

private final class BranchLog: FeaturesObserver {
  private let state = Lock<[[String]]>.make([])
  func branchCreated(_ branch: BranchEvent) { state.withLock { $0.append(branch.scope.map(\.name)) } }
  var scopes: [[String]] { state.withLock { $0 } }
}
