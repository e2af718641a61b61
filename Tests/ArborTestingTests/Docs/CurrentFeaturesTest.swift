// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "Code that reads the current features".
import ArborDemoFeatures
import ArborTesting
import Synchronization
import Testing

/// Code under test that resolves from the task's current features.
struct GreetingHandler {
  @Resolved var greeter: Greeter

  func handle() throws { try greeter.greet() }
}

@Suite struct CurrentFeaturesTest {
  @Test func aHandlerRunsWithTheTestContainerAsItsCurrentFeatures() throws {
    let greeted = Mutex(0)
    let features = TestFeatures()
    features.patch(\Greeter.greet, with: { greeted.withLock { $0 += 1 } })
    try features.withCurrent {
      try GreetingHandler().handle()
    }
    #expect(greeted.withLock { $0 } == 1)
  }
}
