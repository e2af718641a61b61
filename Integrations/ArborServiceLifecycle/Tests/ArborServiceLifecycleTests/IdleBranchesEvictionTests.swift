import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycle
import ArborServiceLifecycleTesting
import Logging
import ServiceLifecycle
import Testing

@Suite struct IdleBranchesEvictionTests {
  @Test func anIdleBranchIsClosedOnTimeWithoutARequest() async throws {
    let teardowns = Teardowns()
    let root = testTree(teardowns: teardowns)
    let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: .milliseconds(20)) { (user: String) in
      Session(user: user)
    }
    let eviction = IdleBranchesEviction(sessions, every: .milliseconds(10))
    let group = ServiceGroup(services: [eviction], logger: RecordingLogHandler.Entries().logger())
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      let tag: SessionTag = try await sessions.withBranch(for: "ann") { try await $0.instance() }
      #expect(tag.user == "ann")
      // No other request comes: the service closes the idle branch.
      await teardowns.wait(for: "session ann")
      #expect(teardowns.all == ["session ann"])
      #expect(sessions.count == 0)
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
    }
    try await root.close()
  }

  @Test func itsDescriptionNamesTheScopeAndTheInterval() {
    let sessions = KeyedBranches(SessionScope.self, of: testTree()) { (user: String) in Session(user: user) }
    #expect(
      IdleBranchesEviction(sessions, every: .seconds(60)).description
        == "IdleBranchesEviction(SessionScope every 60.0 seconds)")
  }
}
