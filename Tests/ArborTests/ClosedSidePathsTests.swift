import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// The requests beside `instance()`: optional resolution, optional context reads and `which` answer
/// nothing but `FeaturesClosed` through a closed branch or a branch below it.
@Suite struct ClosedSidePathsTests {
  /// A feature nobody registers.
  struct Plugin: CacheableFeature {
    static var placeholder: Plugin { Plugin() }
  }

  static func closedSessionAndTask() async throws -> (session: Features, task: Features) {
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 1 }))
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(TaskScope.self) { _ in }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let task = try session.branch(TaskScope.self, context: "t1")
    try await session.close()
    return (session, task)
  }

  @Test(arguments: [false, true])
  func optionalRequestsOfAnUnregisteredFeatureFail(belowTheClosedBranch: Bool) async throws {
    let (session, task) = try await Self.closedSessionAndTask()
    let features = belowTheClosedBranch ? task : session
    synchronously {
      #expect(throws: FeaturesClosed.self) { try features.instanceIfDefined(of: Plugin.self) }
      #expect(throws: FeaturesClosed.self) { try features.instanceIfDefined(of: Clock.self) }
    }
    await #expect(throws: FeaturesClosed.self) { try await features.instanceIfDefined(of: Plugin.self) }
    await #expect(throws: FeaturesClosed.self) { try await features.instanceIfDefined(of: Clock.self) }
  }

  @Test(arguments: [false, true])
  func optionalContextReadsFail(belowTheClosedBranch: Bool) async throws {
    let (session, task) = try await Self.closedSessionAndTask()
    let features = belowTheClosedBranch ? task : session
    #expect(throws: FeaturesClosed.self) { try features.context(ifPresent: SessionScope.self) }
    #expect(throws: FeaturesClosed.self) { try features.context(ifPresent: RequestScope.self) }
    let error = #expect(throws: FeaturesClosed.self) { try features.context(ifPresent: SessionScope.self) }
    #expect(error?.diagnostic.message == "cannot read the context of SessionScope: its branch is closed")
  }

  @Test func whichAnswersWithTheClosedDiagnostic() async throws {
    let (session, task) = try await Self.closedSessionAndTask()
    for features in [session, task] {
      let which = features.which(Clock.self)
      #expect(which.implementation == nil)
      #expect(which.diagnostic?.kind == "FeaturesClosed")
      #expect(which.diagnostic?.message == "cannot resolve Clock: its branch is closed")
      let undefined = features.which(Plugin.self)
      #expect(undefined.diagnostic?.kind == "FeaturesClosed")
      let origin = features.which(RequestTimeout.self)
      #expect(origin.value == nil)
      #expect(origin.diagnostic?.kind == "FeaturesClosed")
      #expect(origin.diagnostic?.message == "cannot use the value of RequestTimeout: its branch is closed")
    }
  }
}
