import Arbor
import ArborConfiguration
import ArborTesting
import Configuration
import Testing

@Suite struct ReloadTests {
  @Test func aChangeReachesObserversOnEveryBranchThatReadsTheValue() async throws {
    let provider = MutableInMemoryProvider(initialValues: ["http.port": 6060])
    let configuration = FeaturesConfiguration(provider: provider)
    let root = FeaturesRoot { registry in
      registry.configure(ServerPort.self, from: configuration)
      registry.defineScope(SessionScope.self) { _ in }
      registry.defineScope(RequestScope.self) { _ in }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let request = try ann.branch(RequestScope.self, context: 1)
    bob[ServerPort.self] = 1234  // bob shadows the registry value: the change does not reach him
    // Subscribed before the change: each stream yields the current value first.
    let streams = [root, ann, request, bob].map { $0.observe(ServerPort.self) }
    let watching = Task { try await configuration.watch(until: root) }

    provider.setValue(7070, forKey: "http.port")

    let seen = try await withTimeout {
      try await [collect(streams[0], count: 2), collect(streams[1], count: 2), collect(streams[2], count: 2)]
    }
    #expect(seen == [[6060, 7070], [6060, 7070], [6060, 7070]])
    #expect(request[ServerPort.self] == 7070)
    #expect(bob[ServerPort.self] == 1234)
    try await root.close()
    // The root closed: bob's stream finished, having seen only his own value.
    #expect(try await collect(streams[3], count: 2) == [1234])
    try await withTimeout { try await watching.value }
  }

  @Test func aRemovedKeyGivesTheDefaultAndAValueThatComesBackIsReadAgain() async throws {
    let provider = MutableInMemoryProvider(initialValues: ["database.path": "/a.sqlite"])
    let configuration = FeaturesConfiguration(provider: provider)
    let root = FeaturesRoot { registry in registry.configure(DatabasePath.self, from: configuration) }
    let stream = root.observe(DatabasePath.self)
    let watching = Task { try await configuration.watch(until: root) }

    provider.setValue(nil, forKey: "database.path")
    let removed = try await collect(stream, count: 2)
    provider.setValue("/b.sqlite", forKey: "database.path")
    let back = try await collect(stream, count: 1)

    #expect(removed == ["/a.sqlite", "todos.sqlite"])
    #expect(back == ["/b.sqlite"])
    try await root.close()
    try await withTimeout { try await watching.value }
  }

  @Test func theWatchEndsWhenTheRootClosesAndLeavesNoTaskBehind() async throws {
    let provider = MutableInMemoryProvider(initialValues: ["http.port": 6060])
    let configuration = FeaturesConfiguration(provider: provider)
    let root = FeaturesRoot { registry in registry.configure(ServerPort.self, from: configuration) }
    let stream = root.observe(ServerPort.self)
    let watching = Task { try await configuration.watch(until: root) }
    provider.setValue(7070, forKey: "http.port")
    #expect(try await collect(stream, count: 2) == [6060, 7070])  // the watch is running

    try await root.close()

    // The watch returns by itself (no cancellation), within the bound.
    try await withTimeout { try await watching.value }
    #expect(!watching.isCancelled)
  }

  @Test func theWatchEndsWhenItsTaskIsCancelled() async throws {
    let provider = MutableInMemoryProvider(initialValues: [:])
    let configuration = FeaturesConfiguration(provider: provider)
    let root = FeaturesRoot { registry in registry.configure(ServerPort.self, from: configuration) }
    let watching = Task { try await configuration.watch(until: root) }
    watching.cancel()
    try await withTimeout { try await watching.value }
    #expect(root[ServerPort.self] == 8080)
  }

  @Test func oneConfigurationFollowsEveryRootThatReadsIt() async throws {
    // Two roots configured from one configuration: both follow it while their watch runs.
    let provider = MutableInMemoryProvider(initialValues: ["verbose": false])
    let configuration = FeaturesConfiguration(provider: provider)
    let first = FeaturesRoot { registry in registry.configure(Verbose.self, from: configuration) }
    let second = FeaturesRoot { registry in registry.configure(Verbose.self, from: configuration) }
    let streams = [first.observe(Verbose.self), second.observe(Verbose.self)]
    let watching = Task { try await configuration.watch(until: first) }
    provider.setValue(true, forKey: "verbose")
    #expect(try await collect(streams[0], count: 2) == [false, true])
    #expect(try await collect(streams[1], count: 2) == [false, true])
    try await first.close()
    try await withTimeout { try await watching.value }
    #expect(second[Verbose.self] == true)
  }

  @Test func theWatchOfARootAlreadyClosedReturnsAtOnce() async throws {
    let configuration = FeaturesConfiguration(provider: MutableInMemoryProvider(initialValues: [:]))
    let root = FeaturesRoot { registry in registry.configure(ServerPort.self, from: configuration) }
    try await root.close()
    _ = TestFeatures()  // installs ArborTesting's reporter: a report would fail this test
    try await withTimeout { try await configuration.watch(until: root) }
  }
}
