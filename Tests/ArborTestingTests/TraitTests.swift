import ArborDemoFeatures
import ArborTesting
import Testing

/// `.features { ... }` declares patches for every container a test makes.
@Suite(
  .features { features in
    features.use(Clock(now: { 1 }))
    features.patch(Account.self) { $0.id += 1 }  // counts how often the suite's patches apply
  })
struct TraitTests {
  @Test func aSuitesPatchesApplyOnceToEachContainer() throws {
    let account: Account = try TestFeatures().instance(context: 0)
    #expect(account.id == 0)  // the placeholder's -1, plus one
  }

  @Test func aSuitesPatchesApplyToItsTests() throws {
    let clock: Clock = try TestFeatures().instance()
    #expect(clock.now() == 1)
  }

  @Test(.features { $0.patch(\Clock.now, with: { 2 }) })
  func aTestsPatchesApplyAfterItsSuites() throws {
    let clock: Clock = try TestFeatures().instance()
    #expect(clock.now() == 2)
  }

  @Test(.features { $0.use(context: Session(user: "ann"), for: SessionScope.self) })
  func copiesOfARealTreeGetThemToo() throws {
    let features = TestFeatures(DemoTree.root())
    let clock: Clock = try features.instance()
    #expect(clock.now() == 1)
    #expect(try features.context(for: SessionScope.self).user == "ann")
  }

  @Test(.features { $0.patch(\Account.id, with: 5) }, arguments: [10, 20])
  func eachCaseOfAParameterizedTestGetsThem(balance: Int) throws {
    let features = TestFeatures()
    features.patch(\Account.balance, with: { balance })
    let account: Account = try features.instance(context: 0)
    #expect(account.id == 5)
    #expect(account.balance() == balance)
  }

  @Test func theyAreReadOnceWhenTheContainerIsMadeSoDetachedTasksSeeThem() async throws {
    let features = TestFeatures()
    let now = try await Task.detached {
      let clock: Clock = try await features.instance()
      return clock.now()
    }.value
    #expect(now == 1)
  }

  @Suite(.features { $0.patch(\Account.id, with: 9) })
  struct Nested {
    @Test func aNestedSuiteAddsItsPatchesToItsParents() throws {
      let features = TestFeatures()
      let clock: Clock = try features.instance()
      let account: Account = try features.instance(context: 0)
      #expect(clock.now() == 1)
      #expect(account.id == 9)
    }
  }
}

@Suite struct WithoutTraitTests {
  @Test func aTestWithoutTheTraitGetsNoPatches() throws {
    let clock: Clock = try TestFeatures().instance()
    expectIssues([unimplementedIssue("Clock.now", at: PlaceholderSite.clock)]) {
      #expect(clock.now() == 0)
    }
  }
}
