import ArborDemoFeatures
import ArborTesting
import Testing

/// In a test container, a feature is defined when the test replaces or patches it (or the copied tree
/// registers it); a context, when the test gives it.
@Suite struct IfDefinedTests {
  @Test func aPlaceholderAloneIsNotDefined() throws {
    let features = TestFeatures()
    #expect(try features.instanceIfDefined(of: Clock.self) == nil)
    features.use(Clock(now: { 42 }))
    #expect(try features.instanceIfDefined(of: Clock.self)?.now() == 42)
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    try features.instanceIfDefined(of: Printer.self)?.print("hello")
    #expect(printed.all == ["hello"])
    #expect(try features.instanceIfDefined(of: Account.self, context: 1) == nil)
  }

  @Test func aCopyOfATreeResolvesWhatTheTreeRegisters() async throws {
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 1 }))
    }
    let copy = TestFeatures(root)
    #expect(try await copy.instanceIfDefined(of: Clock.self)?.now() == 1)
    #expect(try await copy.instanceIfDefined(of: Printer.self) == nil)
  }

  @Test func aContextTheTestGivesIsPresent() throws {
    let features = TestFeatures()
    #expect(try features.context(ifPresent: SessionScope.self) == nil)
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    #expect(try features.context(ifPresent: SessionScope.self)?.user == "ann")
  }
}
