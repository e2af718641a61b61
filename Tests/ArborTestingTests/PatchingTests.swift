import ArborDemoFeatures
import ArborTesting
import Testing

/// What a test container resolves: placeholders, and what the test patched.
@Suite struct PatchingTests {
  @Test func everyFeatureIsItsPlaceholderUntilPatched() throws {
    let features = TestFeatures()
    let account: Account = try features.instance(context: 7)
    #expect(account.id == -1)
  }

  @Test func aKeyPathPatchIsSeen() throws {
    let features = TestFeatures()
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    let printer: Printer = try features.instance()
    printer.print("Hello")
    #expect(printed.all == ["Hello"])
  }

  @Test func aClosurePatchIsSeen() throws {
    let features = TestFeatures()
    features.patch(Clock.self) { $0.now = { 42 } }
    let clock: Clock = try features.instance()
    #expect(clock.now() == 42)
  }

  @Test func patchesApplyInOrderOnTopOfEachOther() throws {
    let features = TestFeatures()
    features.patch(\Account.id, with: 1)
    features.patch(Account.self) { $0.id += 10 }
    features.patch(\Account.balance, with: { 5 })
    let account: Account = try features.instance(context: 0)
    #expect(account.id == 11)
    #expect(account.balance() == 5)
  }

  @Test func aPatchReachesOnlyLaterRequests() throws {
    let features = TestFeatures()
    let before: Clock = try features.instance()
    features.patch(\Clock.now, with: { 42 })
    let after: Clock = try features.instance()
    #expect(after.now() == 42)
    expectIssues([unimplementedIssue("Clock.now", at: PlaceholderSite.clock)]) { _ = before.now() }
  }

  @Test func useReplacesAFeatureOfEveryKind() throws {
    let features = TestFeatures()
    let printed = Lines()
    features.use(Clock(now: { 1 }))
    features.use(Printer(print: printed.print))
    features.use(Greeter(greet: { printed.append("greeted") }))
    features.use(TaggedPrinter(print: { printed.append("tagged \($0)") }))
    features.use(Account(id: 9, balance: { 900 }))

    let clock: Clock = try features.instance()
    let printer: Printer = try features.instance()
    let greeter: Greeter = try features.instance()
    let tagged: TaggedPrinter = try features.instance(context: "any tag")
    let account: Account = try features.instance(context: 3)
    printer.print("\(clock.now())")
    try greeter.greet()
    tagged.print("line")
    #expect(printed.all == ["1.0", "greeted", "tagged line"])
    #expect(account.id == 9)
    #expect(account.balance() == 900)
  }

  @Test func useWithAContextReplacesOneInstanceOfACacheable() throws {
    let features = TestFeatures()
    features.use(Account(id: 7, balance: { 700 }), context: 7)
    features.use(Account(id: 8, balance: { 800 }), context: 8)
    features.patch(\Account.balance, with: { 1 })  // patches apply on top, whenever they are made
    let seven: Account = try features.instance(context: 7)
    let eight: Account = try features.instance(context: 8)
    let other: Account = try features.instance(context: 9)
    #expect([seven.id, eight.id, other.id] == [7, 8, -1])
    #expect([seven.balance(), eight.balance(), other.balance()] == [1, 1, 1])
  }

  @Test func useDropsEarlierPatchesAndLaterOnesApplyOnTop() throws {
    let features = TestFeatures()
    features.patch(\Account.id, with: 1)
    features.use(Account(id: 2, balance: { 0 }))
    let replaced: Account = try features.instance(context: 0)
    features.patch(\Account.id, with: 3)
    let patched: Account = try features.instance(context: 0)
    #expect(replaced.id == 2)
    #expect(patched.id == 3)
  }

  @Test func aScopeContextIsSeenWithoutABranch() throws {
    let features = TestFeatures()
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    #expect(try features.context(for: SessionScope.self).user == "ann")
    try features.require(SessionScope.self)
  }

  @Test func aBranchsOwnContextWinsOverTheContainers() throws {
    let features = TestFeatures()
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let bob = try features.branch(SessionScope.self, context: Session(user: "bob"))
    #expect(try bob.context(for: SessionScope.self).user == "bob")
  }

  @Test func branchesKeepThePatchesAndAnyScopeMayBeBranched() throws {
    let features = TestFeatures()
    features.patch(\Clock.now, with: { 42 })
    let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
    let clock: Clock = try session.instance()
    #expect(clock.now() == 42)
  }

  @Test func aPatchThroughABranchAppliesToTheWholeContainer() throws {
    let features = TestFeatures()
    let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
    session.patch(\Clock.now, with: { 42 })
    let clock: Clock = try features.instance()
    #expect(clock.now() == 42)
  }

  @Test func aLoaderInTheContainerSeesItsPatches() throws {
    let features = TestFeatures()
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    let greeter: Greeter = try features.load(Greeter.mailing())  // resolves Mailer inside the loader
    features.patch(\Mailer.send, with: { printed.append("sent \($0)") })
    let mailing: Greeter = try features.load(Greeter.mailing())
    try mailing.greet()
    #expect(printed.all == ["sent Hello"])
    let error = #expect(throws: FeatureUnimplemented.self) { try greeter.greet() }  // made before Mailer was patched
    #expect(error?.member == "Mailer.send")
  }

  @Test func patchesEscapeWithTheContainer() async throws {
    let features = TestFeatures()
    features.patch(\Clock.now, with: { 42 })
    let now = await Task.detached {
      let clock: Clock = try await features.instance()
      return clock.now()
    }.result
    #expect(try now.get() == 42)
  }

  @Test func patchingFeaturesThatAreNotATestContainerIsReported() {
    let root = DemoTree.root()
    let line = #line + 1
    let patch = { root.patch(\Clock.now, with: { 0 }) }
    expectIssues([
      """
      TestFeaturesMisuse: cannot patch Clock: these features are not a test container
      ├─ requested at: ArborTestingTests/PatchingTests.swift:\(line)
      └─ fix: patch a container made for the test: let features = TestFeatures(),
              or TestFeatures(root) to patch a copy of a real tree
      """
    ]) {
      patch()
    }
  }
}
