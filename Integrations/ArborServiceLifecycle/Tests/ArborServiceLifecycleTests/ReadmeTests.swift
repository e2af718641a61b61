import ArborIntegrationFixtures
import Testing

/// The README's samples, compiled by this package's tests as the README shows them.
@Suite struct ReadmeTests {
  @Test func everySampleIsCompiledHereAsTheReadmeShowsIt() throws {
    let readme = try ReadmeSamples()
    #expect(readme.samples.count >= 1)
    #expect(try readme.samplesNotCompiled() == [], "not compiled by the package's tests")
    #expect(readme.importsWithoutProducts == [])
  }
}
