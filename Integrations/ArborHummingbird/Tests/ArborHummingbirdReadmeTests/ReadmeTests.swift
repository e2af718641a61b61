import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import Hummingbird
import HummingbirdTesting
import Testing

/// The README's server, compiled here from the products its install section names, and served.
@Suite struct ReadmeTests {
  @Test func everySampleIsCompiledHereAsTheReadmeShowsIt() throws {
    let readme = try ReadmeSamples()
    #expect(readme.samples.count >= 2)
    #expect(try readme.samplesNotCompiled() == [], "not compiled by the package's tests")
  }

  @Test func everyModuleTheSamplesImportIsAProductOfTheInstallSection() throws {
    #expect(try ReadmeSamples().importsWithoutProducts == [])
  }

  @Test func aRequestWithoutAKeyIsRefusedWith401AndASignedInOneIsServed() async throws {
    let entries = RecordingLogHandler.Entries()
    let app = makeApplication(root: makeRoot(), accounts: Accounts(), logger: entries.logger())
    try await app.test(.router) { client in
      let anonymous = try await client.execute(uri: "/todos", method: .get)
      #expect(anonymous.status == .unauthorized)
      let stranger = try await client.execute(uri: "/todos", method: .get, headers: [.authorization: "Bearer nobody"])
      #expect(stranger.status == .unauthorized)
      let ann = try await client.execute(uri: "/todos", method: .get, headers: [.authorization: "Bearer ann-token"])
      #expect(ann.status == .ok)
      #expect(String(buffer: ann.body) == "ann: buy milk")
    }
    #expect(!entries.all.contains { $0.level >= .error })
  }
}
