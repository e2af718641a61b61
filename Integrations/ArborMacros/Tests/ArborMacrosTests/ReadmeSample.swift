// The sample of the root README's `@Feature` section, compiled as it is shown (DocsSamplesTests, in
// the root package, checks that the README's block stands here verbatim).
import Arbor
import ArborMacros

@Feature
public struct Weather: CacheableFeature {
  public var temperature: @Sendable (_ city: String) -> Double = { _ in 0 }  // what the placeholder returns
  public var refresh: @Sendable () async throws -> Void
}
