// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "Loading the implementation under test".
import ArborDemoFeatures
import ArborTesting
import Synchronization
import Testing

@Suite struct LoadingTest {
  @Test func loadersAndImplementationTypes() throws {
    let printed = Mutex<[String]>([])
    let features = TestFeatures()
    features.patch(\Clock.now, with: { 5 })
    features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })
    features.use(context: Session(user: "ann"), for: SessionScope.self)

    let greeter: Greeter = try features.load(Greeter.live())  // no context
    let account: Account = try features.load(Account.live(), context: 7)  // with a context
    let live = try features.load(LiveGreeter.self)  // an implementation type

    try greeter.greet()
    try live.greet()
    #expect(account.balance() == 705)
    #expect(printed.withLock { $0 } == ["Hello ann", "Hello ann"])
  }
}

@Suite struct AsyncLoadingTest {
  @Test func asyncTestsAwaitLoadsAndRequests() async throws {
    let features = TestFeatures()
    features.patch(\Printer.print, with: { _ in })
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let greeter: Greeter = try await features.load(Greeter.awaiting())  // an async loader
    let printer: Printer = try await features.instance()
    try greeter.greet()
    printer.print("done")
  }
}
