import ArborDemoFeatures
import ArborTestSupport
import ArborTesting
import Testing

/// `load` runs an implementation under test against the patched container.
@Suite struct LoadingTests {
  @Test func aCacheableLoaderSeesThePatchesAndTheScopeContext() throws {
    let features = TestFeatures()
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let greeter: Greeter = try features.load(Greeter.live())
    try greeter.greet()
    #expect(printed.all == ["Hello ann"])
  }

  /// `Printer.console()` prints to standard output: the test reads what a child process of this
  /// test binary printed, where nothing else runs (Swift Testing reports on standard error).
  @Test(.enabled(if: ChildProcess.isAvailable, "needs to run this test binary as a child process"))
  func aDisposableLoaderRuns() async throws {
    let child = try await ChildProcess.runChild("ConsolePrinterChild")
    // Each line behind the time the patched clock gave when that line was printed.
    #expect(child.standardOutput == "  [t=42.0] from a test\n  [t=43.0] again\n")
    #expect(child.status == 0, "the child failed:\n\(child.standardError)")
    #expect(!child.crashed)
  }

  @Test func aLoaderWithAContextReceivesIt() throws {
    let features = TestFeatures()
    features.patch(\Clock.now, with: { 5 })
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    let account: Account = try features.load(Account.live(), context: 7)
    let tagged: TaggedPrinter = try features.load(TaggedPrinter.live(), context: "db")
    tagged.print("open")
    #expect(account.id == 7)
    #expect(account.balance() == 705)
    #expect(printed.all == ["[db] open"])
  }

  @Test func everyLoadRunsTheLoaderAgain() throws {
    let features = TestFeatures()
    let loads = Lines()
    let loader = FeatureLoader.cacheable { _ in
      loads.append("loaded")
      return Greeter(greet: {})
    }
    let _: Greeter = try features.load(loader)
    let _: Greeter = try features.load(loader)
    #expect(loads.all == ["loaded", "loaded"])
  }

  @Test func implementationTypesLoadWithAndWithoutAContext() throws {
    let features = TestFeatures()
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let greeter = try features.load(LiveGreeter.self)
    let shout = try features.load(PrintingShout.self)
    let tagged = try features.load(ShoutingTaggedPrinter.self, context: "db")
    try greeter.greet()
    shout.shout("hey")
    tagged.print("open")
    #expect(printed.all == ["Hello ann", "HEY", "[db] OPEN"])
  }

  @Test func aLoadersOwnErrorIsThrownAsItIs() throws {
    let features = TestFeatures()  // no session context
    let error = #expect(throws: FeaturesScopeContextUnavailable.self) {
      let _: Greeter = try features.load(Greeter.live())
    }
    #expect(error?.diagnostic.message.contains("SessionScope") == true)
  }

  /// What loading `Greeter.live()`, which reads the session, reports in `features` without one.
  static func missingSessionReport(in features: Features) -> String? {
    let error = #expect(throws: FeaturesScopeContextUnavailable.self) {
      let _: Greeter = try features.load(Greeter.live())
    }
    return error?.diagnostic.renderedTree()
  }

  @Test func aMissingContextIsToBeGivenByTheTest() throws {
    #expect(
      Self.missingSessionReport(in: TestFeatures()) == """
        FeaturesScopeContextUnavailable: no context for SessionScope
        ├─ requested at: ArborDemoFeatures/Greeter.swift:33
        ├─ scope: Root
        └─ fix: give it in the test: features.use(context: <a Session>, for: SessionScope.self)
        """)
  }

  @Test func aMissingContextInACopyOfATreeMayAlsoBeBranched() throws {
    #expect(
      Self.missingSessionReport(in: TestFeatures(DemoTree.root())) == """
        FeaturesScopeContextUnavailable: no context for SessionScope
        ├─ requested at: ArborDemoFeatures/Greeter.swift:33
        ├─ scope: Root
        ├─ defined in: Root › SessionScope
        └─ fix: give it in the test: features.use(context: <a Session>, for: SessionScope.self)
                or read it in a branch of SessionScope or below: features.branch(SessionScope.self, context: ...)
        """)
  }

  @Test func loadingALoaderAsAnotherFeatureThrows() throws {
    let features = TestFeatures()
    let line = #line + 1
    let loadAsPrinter = { let _: Printer = try features.load(Greeter.live()) }
    let error = #expect(throws: TestFeaturesMisuse.self) { try loadAsPrinter() }
    #expect(
      error?.diagnostic.renderedTree() == """
        TestFeaturesMisuse: Greeter.live() loads Greeter, not Printer
        ├─ requested at: ArborTestingTests/LoadingTests.swift:\(line)
        └─ fix: ask for the feature the loader loads: let greeter: Greeter = try features.load(Greeter.live())
        """)
  }

  @Test func anAsyncLoaderIsAwaited() async throws {
    let features = TestFeatures()
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let awaited: Greeter = try await features.load(Greeter.awaiting())
    let live: Greeter = try await features.load(Greeter.live())  // synchronous loaders too
    try awaited.greet()
    try live.greet()
    #expect(printed.all == ["Hello ann", "Hello ann"])
  }

  @Test func anAsyncLoaderLoadedWithoutAwaitThrows() throws {
    let features = TestFeatures()
    let line = #line + 1
    let loadWithoutAwait = { let _: Greeter = try features.load(Greeter.awaiting()) }
    let error = #expect(throws: TestFeaturesMisuse.self) { try loadWithoutAwait() }
    #expect(
      error?.diagnostic.renderedTree() == """
        TestFeaturesMisuse: Greeter.awaiting() loads Greeter asynchronously
        ├─ requested at: ArborTestingTests/LoadingTests.swift:\(line)
        └─ fix: await it: let greeter: Greeter = try await features.load(Greeter.awaiting())
        """)
  }

  @Test func aRealTreeLoadsALoaderUnderTestToo() throws {
    let root = DemoTree.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let account: Account = try session.load(Account.live(), context: 1)
    #expect(account.balance() == 142)
  }
}

/// What ``LoadingTests/aDisposableLoaderRuns()`` runs in its child process, and nowhere else.
@Suite(.enabled(if: ChildProcess.runs("ConsolePrinterChild"), "LoadingTests runs it in a child process"))
struct ConsolePrinterChild {
  @Test func aConsolePrinterPrintsEachLineBehindTheClocksTime() throws {
    let features = TestFeatures()
    let reads = Lines()
    features.patch(
      \Clock.now,
      with: {
        reads.append("now")
        return Double(41 + reads.all.count)
      })
    let printer: Printer = try features.load(Printer.console())
    #expect(reads.all.isEmpty, "loading the printer read the clock")
    printer.print("from a test")
    printer.print("again")
  }
}
