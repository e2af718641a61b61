import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycle
import ArborServiceLifecycleTesting
import Logging
import Testing

@Suite struct DiagnosticErrorLogTests {
  /// What an app throws on purpose: a record that does not exist.
  struct Missing: Error, CustomStringConvertible {
    var description: String { "Missing: no record 7" }
  }

  /// Throws ``Missing`` on every load.
  struct Record: CacheableFeature {
    static var placeholder: Record { Record() }
    static func live() -> FeatureLoader { .cacheable { _ -> Record in throw Missing() } }
  }

  /// Loads a ``Record``, so its failure wraps the record's.
  struct Report: CacheableFeature {
    var record: Record
    static var placeholder: Report { Report(record: Record()) }
    static func live() -> FeatureLoader { .cacheable { features in Report(record: try features.instance()) } }
  }

  let root = FeaturesRoot { registry in
    registry.use(Record.live())
    registry.use(Report.live())
  }

  @Test func theCauseIsFoundThroughEveryLayerOfLoading() throws {
    let failure = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Report.self) }
    let error = try #require(failure)
    #expect(error.cause is FeatureLoadingFailed)
    #expect(DiagnosticErrorLog.cause(of: error) is Missing)
    #expect(DiagnosticErrorLog.cause(of: Missing()) is Missing)
  }

  @Test func anArborErrorOfItsOwnHasNoCause() {
    let undefined = #expect(throws: FeatureUndefined.self) { try root.instance(of: Unregistered.self) }
    #expect(DiagnosticErrorLog.cause(of: undefined!) == nil)
  }

  @Test func aClientErrorIsLoggedBelowAServerErrorWithTheCauseNamedOnce() throws {
    let logging = DiagnosticErrorLog()
    #expect(
      [399, 400, 404, 499, 500, 503].map(logging.level(forStatusCode:)) == [
        .error, .info, .info, .info, .error, .error,
      ])
    let failure = try #require(#expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Record.self) })
    let entries = RecordingLogHandler.Entries()
    logging.log(failure, statusCode: 404, to: entries.logger())
    let entry = try #require(entries.all.first)
    #expect(entry.level == .info)
    #expect(entry.metadata["http.response.status_code"] == "404")
    #expect(entry.metadata[DiagnosticLogMetadata.kindKey] == "FeatureLoadingFailed")
    #expect(
      entry.message
        == "FeatureLoadingFailed: could not load Record (ArborServiceLifecycleTests/DiagnosticErrorLogTests.swift:51)"
        + " ← Missing: no record 7")
  }
}
