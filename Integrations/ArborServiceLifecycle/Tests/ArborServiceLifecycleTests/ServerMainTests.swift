import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycle
import ArborServiceLifecycleTesting
import Logging
import ServiceLifecycle
import Testing

@Suite struct ServerMainTests {
  /// What a port in use looks like: not an Arbor error.
  struct AddressInUse: Error, CustomStringConvertible {
    var description: String { "bind(descriptor:ptr:bytes:): Address already in use (errno: 98)" }
  }

  @Test func aServerThatStopsCleanlyExitsWithZeroAndLogsNothing() async {
    let entries = RecordingLogHandler.Entries()
    let status = await ServerMain.exitStatus(logger: entries.logger()) {}
    #expect(status == 0)
    #expect(entries.all.isEmpty)
  }

  @Test func aFailedValidationExitsWithOneAndLogsTheWholeDiagnosticOnce() async {
    let root = FeaturesRoot { registry in
      registry.use(Audit.live())
    }
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: entries.logger(label: "features"))
    let status = await ServerMain.exitStatus(logger: entries.logger(label: "server")) {
      try await ServiceGroup(services: [service], logger: RecordingLogHandler.Entries().logger()).run()
    }
    #expect(status == 1)
    // One entry, ServerMain's: the whole tree, every problem with its fix, and its diagnostic as
    // metadata. The service that failed leaves it to ServerMain.
    #expect(entries.all.filter { $0.level >= .error }.count == 1)
    #expect(entries.all.filter { $0.metadata[DiagnosticLogMetadata.kindKey] != nil }.count == 1)
    let stopped = entries.all.first { $0.level == .critical }
    #expect(
      stopped?.message.hasPrefix("server stopped: FeaturesValidationFailed: 1 problem in the features tree\n") == true)
    #expect(stopped?.message.contains("fix: ") == true)
    #expect(stopped?.message.contains("Unregistered") == true)
    #expect(stopped?.metadata[DiagnosticLogMetadata.kindKey] == "FeaturesValidationFailed")
  }

  @Test func anyOtherErrorExitsWithOneAndLogsItsDescription() async {
    let entries = RecordingLogHandler.Entries()
    let status = await ServerMain.exitStatus(logger: entries.logger()) { throw AddressInUse() }
    #expect(status == 1)
    #expect(entries.all.map(\.level) == [.critical])
    #expect(
      entries.all.first?.message
        == "server stopped: bind(descriptor:ptr:bytes:): Address already in use (errno: 98)")
  }

  @Test func aFailedStartIsLoggedOnceToo() async {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (features: Features) throws -> Connection in
          // Validation passes; the start does not.
          guard features.isValidating else { throw AddressInUse() }
          return Connection(number: 0)
        }, eager: true)
    }
    let serviceEntries = RecordingLogHandler.Entries()
    let serverEntries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: serviceEntries.logger())
    let status = await ServerMain.exitStatus(logger: serverEntries.logger()) {
      try await ServiceGroup(services: [service], logger: RecordingLogHandler.Entries().logger()).run()
    }
    #expect(status == 1)
    #expect(!serviceEntries.all.contains { $0.level >= .error })
    #expect(serverEntries.all.map(\.level) == [.critical])
    #expect(serverEntries.all.first?.metadata[DiagnosticLogMetadata.kindKey] == "FeaturesStartFailed")
  }

  @Test func withoutServerMainTheServiceLogsItsFailedValidationItself() async {
    let root = FeaturesRoot { registry in
      registry.use(Audit.live())
    }
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: entries.logger())
    await #expect(throws: FeaturesValidationFailed.self) { try await service.validate() }
    #expect(entries.all.filter { $0.level == .critical }.count == 1)
  }
}
