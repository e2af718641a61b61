import ArborDemoFeatures
import ArborTesting
import Testing

/// `TestFeatures(root)`: a copy of a real tree with the test's patches, which never touches the tree.
@Suite struct IntegrationTests {
  /// A tree whose cacheable records each load, so tests can see which copy loaded what.
  static func countingRoot(_ loads: Lines) -> Features {
    FeaturesRoot { registry in
      registry.use(Clock(now: { 42 }))
      registry.use(Printer.console())
      registry.use(Account.live())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          FeatureLoader.cacheable { features in
            let session = try features.context(for: SessionScope.self)
            let printer: Printer = try features.instance()
            loads.append(session.user)
            return Greeter(greet: { printer.print("Hello \(session.user)") })
          })
      }
    }
  }

  @Test func whatIsNotPatchedLoadsWithTheTreesLoaders() throws {
    let features = TestFeatures(DemoTree.root())
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
    let greeter: Greeter = try session.instance()  // Greeter.live(), with the patched Printer
    let clock: Clock = try session.instance()
    try greeter.greet()
    #expect(printed.all == ["Hello ann"])
    #expect(clock.now() == 42)
  }

  @Test func patchingTheCopyLeavesTheTreeAsItWas() throws {
    let root = DemoTree.root()
    let features = TestFeatures(root)
    features.use(Clock(now: { 7 }))
    let patched: Clock = try features.instance()
    let original: Clock = try root.instance()
    #expect(patched.now() == 7)
    #expect(original.now() == 42)
  }

  @Test func aCopyHasItsOwnCachesAndCachesAsTheTreeDoes() throws {
    let loads = Lines()
    let root = Self.countingRoot(loads)
    let ann = Session(user: "ann")
    let _: Greeter = try root.branch(SessionScope.self, context: ann).instance()
    let copy = try TestFeatures(root).branch(SessionScope.self, context: ann)
    let _: Greeter = try copy.instance()
    let _: Greeter = try copy.instance()
    #expect(loads.all == ["ann", "ann"])  // once in the tree, once in the copy
  }

  @Test func aPatchedRegisteredFeatureIsItsPlaceholderPlusThePatch() throws {
    let features = TestFeatures(Self.countingRoot(Lines()))
    features.patch(\Account.balance, with: { 5 })
    let account: Account = try features.instance(context: 7)
    #expect(account.balance() == 5)
    #expect(account.id == -1)  // not Account.live()'s 7: the feature is its placeholder, patched
  }

  @Test func aFeatureTheTreeDoesNotRegisterIsStillUndefined() throws {
    let features = TestFeatures(DemoTree.root())
    #expect(throws: FeatureUndefined.self) { let _: Mailer = try features.instance() }
  }

  @Test func butTheTestCanProvideIt() throws {
    let features = TestFeatures(DemoTree.root())
    let sent = Lines()
    features.patch(\Mailer.send, with: sent.print)
    let mailer: Mailer = try features.instance()
    try mailer.send("Hello")
    #expect(sent.all == ["Hello"])
  }

  @Test func onlyTheTreesScopesCanBeBranched() throws {
    enum OtherScope: FeaturesScope {}
    let features = TestFeatures(DemoTree.root())
    #expect(throws: FeaturesScopeUndefined.self) { try features.branch(OtherScope.self) }
  }

  @Test func aCopyBranchesAScopeDefinedAtTheRootFromASessionAsTheTreeDoes() throws {
    enum TaskScope: FeaturesScope {}
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 42 }))
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.live())
      }
      registry.defineScope(TaskScope.self) { _ in }
    }
    let features = TestFeatures(root)
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    let task = try features.branch(SessionScope.self, context: Session(user: "ann")).branch(TaskScope.self)
    try task.instance(of: Greeter.self).greet()  // the session's Greeter, seen from the task
    let copiedSession = TestFeatures(try root.branch(SessionScope.self, context: Session(user: "bob")))
    copiedSession.patch(\Printer.print, with: printed.print)
    try copiedSession.branch(TaskScope.self).instance(of: Greeter.self).greet()
    #expect(printed.all == ["Hello ann", "Hello bob"])
  }

  @Test func aCopyOfABranchIsAtTheSameBranchWithTheSameContexts() throws {
    let session = try DemoTree.root().branch(SessionScope.self, context: Session(user: "bob"))
    let features = TestFeatures(session)
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    let greeter: Greeter = try features.instance()
    try greeter.greet()
    #expect(try features.context(for: SessionScope.self).user == "bob")
    #expect(printed.all == ["Hello bob"])
  }

  @Test func aCopyOfATestContainerStartsWithItsPatchesThenGoesItsOwnWay() throws {
    let base = TestFeatures()
    base.patch(\Clock.now, with: { 1 })
    let copy = TestFeatures(base)
    copy.patch(\Clock.now, with: { 2 })
    base.patch(\Account.id, with: 3)
    let baseClock: Clock = try base.instance()
    let copyClock: Clock = try copy.instance()
    let copyAccount: Account = try copy.instance(context: 0)
    #expect(baseClock.now() == 1)
    #expect(copyClock.now() == 2)
    #expect(copyAccount.id == -1)
  }
}
