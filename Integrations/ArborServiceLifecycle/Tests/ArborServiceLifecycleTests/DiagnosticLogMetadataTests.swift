import Arbor
import ArborServiceLifecycle
import ArborServiceLifecycleTesting
import Foundation
import Logging
import Testing

@Suite struct DiagnosticLogMetadataTests {
  @Test func aDiagnosticIsLoggedAsItsSummaryWithItsJSONAndKind() throws {
    let entries = RecordingLogHandler.Entries()
    let diagnostic = Diagnostic(
      kind: "FeatureUndefined", message: "no implementation of Clock",
      location: SourceLocation(fileID: "App/Main.swift", line: 7))
    entries.logger().log(level: .error, diagnostic: diagnostic, metadata: ["http.response.status_code": "500"])

    let entry = try #require(entries.all.first)
    #expect(entries.all.count == 1)
    #expect(entry.level == .error)
    #expect(entry.message == "FeatureUndefined: no implementation of Clock (App/Main.swift:7)")
    #expect(entry.metadata[DiagnosticLogMetadata.kindKey] == "FeatureUndefined")
    #expect(entry.metadata["http.response.status_code"] == "500")
    guard case .string(let json)? = entry.metadata[DiagnosticLogMetadata.diagnosticKey] else {
      Issue.record("no diagnostic JSON in \(entry.metadata)")
      return
    }
    #expect(!json.contains("\n"))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["kind"] as? String == "FeatureUndefined")
    #expect(object["message"] as? String == "no implementation of Clock")
  }

  @Test func theKeysAreArborsOwn() {
    #expect(DiagnosticLogMetadata.diagnosticKey == "arbor.diagnostic")
    #expect(DiagnosticLogMetadata.kindKey == "arbor.diagnostic.kind")
  }
}
