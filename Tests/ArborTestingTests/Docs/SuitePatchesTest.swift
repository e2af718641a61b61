// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "Patches for a whole suite".
import ArborDemoFeatures
import ArborTesting
import Testing

@Suite(
  .features { features in
    features.use(Clock(now: { 42 }))
    features.use(context: Session(user: "ann"), for: SessionScope.self)
  })
struct SuitePatchesTest {
  @Test func theSuitesPatchesAreThere() throws {
    let features = TestFeatures()
    let clock: Clock = try features.instance()
    #expect(clock.now() == 42)
  }

  @Test(.features { $0.patch(\Clock.now, with: { 7 }) })
  func aTestAddsItsOwnAfterTheSuites() throws {
    let features = TestFeatures()
    let clock: Clock = try features.instance()
    #expect(clock.now() == 7)
    #expect(try features.context(for: SessionScope.self).user == "ann")
  }
}
