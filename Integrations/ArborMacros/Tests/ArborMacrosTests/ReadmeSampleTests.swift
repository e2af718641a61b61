import Arbor
import ArborTesting
import Testing

@Suite struct ReadmeSampleTests {
  @Test func theReadmesFeatureHasAPublicInitialiserAndAPlaceholderThatTestsPatch() async throws {
    let weather = Weather(temperature: { _ in 21 }, refresh: {})
    #expect(weather.temperature("Oslo") == 21)
    let features = TestFeatures()
    features.patch(\Weather.temperature, with: { _ in 7 })
    let patched: Weather = try await features.instance()
    #expect(patched.temperature("Oslo") == 7)
    let issues = recordedIssues { _ = Weather.placeholder.temperature("Oslo") }
    #expect(issues.count == 1)
  }
}
