import Arbor
import ArborServiceLifecycle
import ArborServiceLifecycleTesting
import Foundation
import Logging
import Testing

@Suite struct LoggingIssueReporterTests {
  @Test func aReportIsALogEntryWithItsDiagnostic() throws {
    let entries = RecordingLogHandler.Entries()
    let reporter = LoggingIssueReporter(logger: entries.logger())
    let diagnostic = Diagnostic(
      kind: "TeardownSkipped", message: "a branch was released before its teardowns ran",
      location: SourceLocation(fileID: "App/Main.swift", line: 12))
    reporter.report(IssueReporting.Report(diagnostic, severity: .failure))
    reporter.report(
      IssueReporting.Report(
        Diagnostic(kind: "FeatureUnimplemented", message: "Clock.now is unimplemented"), severity: .warning,
        site: SourceLocation(fileID: "App/Clock.swift", line: 3)))

    let logged = entries.all
    #expect(logged.map(\.level) == [.error, .warning])
    #expect(logged[0].message == "TeardownSkipped: a branch was released before its teardowns ran (App/Main.swift:12)")
    #expect(logged[0].metadata["arbor.diagnostic.kind"] == "TeardownSkipped")
    #expect(logged[0].metadata["arbor.site"] == "App/Main.swift:12")
    #expect(logged[1].metadata["arbor.site"] == "App/Clock.swift:3")
    guard case .string(let json)? = logged[0].metadata[DiagnosticLogMetadata.diagnosticKey] else {
      Issue.record("no diagnostic JSON in \(logged[0].metadata)")
      return
    }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["kind"] as? String == "TeardownSkipped")
  }
}
