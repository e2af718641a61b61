import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import Testing
import VaporTesting

/// The README's server, compiled here from the products its install section names, and served.
@Suite struct ReadmeTests {
  @Test func everySampleIsCompiledHereAsTheReadmeShowsIt() throws {
    let readme = try ReadmeSamples()
    #expect(readme.samples.count >= 1)
    #expect(try readme.samplesNotCompiled() == [])
  }

  @Test func everyModuleTheSamplesImportIsAProductOfTheInstallSection() throws {
    #expect(try ReadmeSamples().importsWithoutProducts == [])
  }

  @Test func aRequestWithoutAKeyIsRefusedWith401AndASignedInOneIsServed() async throws {
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      app.logger = entries.logger()
      try await configure(app, root: makeRoot(), accounts: Accounts())
      try await app.asyncBoot()
      let anonymous = try await app.testing().sendRequest(.GET, "/todos")
      #expect(anonymous.status == .unauthorized)
      let stranger = try await app.testing().sendRequest(.GET, "/todos", headers: ["Authorization": "Bearer nobody"])
      #expect(stranger.status == .unauthorized)
      let ann = try await app.testing().sendRequest(.GET, "/todos", headers: ["Authorization": "Bearer ann-token"])
      #expect(ann.status == .ok)
      #expect(ann.body.string == "ann: buy milk")
    }
    #expect(!entries.all.contains { $0.level >= .error })
  }
}
