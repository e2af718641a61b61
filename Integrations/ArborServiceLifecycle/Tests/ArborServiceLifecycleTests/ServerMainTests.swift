import Arbor
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
    let critical = entries.all.filter { $0.level == .critical }
    // The service's one-line entry, then the whole tree: every problem with its fix.
    #expect(critical.count == 2)
    let stopped = critical.last
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
}
