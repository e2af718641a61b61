import ArborDemoFeatures
import ArborTesting
import Testing

/// Tests that run at the same time, each with its own patches, never see each other's.
///
/// The cases of a parameterized test run in parallel; each yields between patching and checking,
/// so that others patch in between.
@Suite struct ParallelIsolationTests {
  /// One tree shared by every case: copies of it must stay apart, and it must stay untouched.
  static let sharedRoot = DemoTree.root()

  @Test(arguments: 0..<64)
  func parallelTestsSeeOnlyTheirOwnPatches(_ number: Int) async throws {
    let features = TestFeatures()
    let printed = Lines()
    features.patch(\Clock.now, with: { Double(number) })
    features.patch(\Printer.print, with: printed.print)
    features.use(context: Session(user: "user \(number)"), for: SessionScope.self)
    for _ in 0..<10 { await Task.yield() }
    let greeter: Greeter = try await features.load(Greeter.live())
    let clock: Clock = try await features.instance()
    try greeter.greet()
    #expect(clock.now() == Double(number))
    #expect(printed.all == ["Hello user \(number)"])
  }

  @Test(arguments: 0..<64)
  func parallelCopiesOfOneTreeSeeOnlyTheirOwnPatches(_ number: Int) async throws {
    let features = TestFeatures(Self.sharedRoot)
    let printed = Lines()
    features.patch(\Printer.print, with: printed.print)
    features.use(Clock(now: { Double(number) }))
    let session = try features.branch(SessionScope.self, context: Session(user: "user \(number)"))
    for _ in 0..<10 { await Task.yield() }
    let greeter: Greeter = try await session.instance()
    try greeter.greet()
    let clock: Clock = try await session.instance()
    let original: Clock = try await Self.sharedRoot.instance()
    #expect(printed.all == ["Hello user \(number)"])
    #expect(clock.now() == Double(number))
    #expect(original.now() == 42)
  }

  @Test func manyContainersPatchedAndReadConcurrentlyStayApart() async throws {
    let mismatches = await withTaskGroup(of: Int.self) { group in
      for number in 0..<200 {
        group.addTask {
          let features = TestFeatures()
          features.patch(\Account.id, with: number)
          await Task.yield()
          var mismatches = 0
          for _ in 0..<50 {
            let account = try? await features.instance(of: Account.self, context: number)
            if account?.id != number { mismatches += 1 }
          }
          return mismatches
        }
      }
      return await group.reduce(0, +)
    }
    #expect(mismatches == 0)
  }

  @Test func oneContainerPatchedFromManyTasksKeepsEveryPatch() async throws {
    let features = TestFeatures()
    await withTaskGroup(of: Void.self) { group in
      for number in 0..<100 {
        group.addTask { features.use(Account(id: number, balance: { number }), context: number) }
      }
    }
    let ids = try (0..<100).map { try features.instance(of: Account.self, context: $0).id }
    #expect(ids == Array(0..<100))
  }
}
