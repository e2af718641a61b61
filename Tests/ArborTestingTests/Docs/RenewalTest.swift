// Sources/Core/Arbor.docc/Lifecycle.md, "Renewing instances", and
// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "Renewals in tests".
import ArborTesting
import Synchronization
import Testing

// sample: time-to-live
struct ExchangeRates: CacheableFeature {
  var rate: @Sendable (_ currency: String) -> Double?
  static var placeholder: ExchangeRates { ExchangeRates(rate: unimplemented("ExchangeRates.rate", placeholder: nil)) }
}

extension ExchangeRates {
  /// Fetched at most once an hour: the first request after that fetches them again, and renews
  /// every instance built from them.
  static func fetched() -> FeatureLoader {
    .cacheable(timeToLive: .seconds(3600)) { _ async throws in
      let table = try await RatesService.fetch()
      return ExchangeRates(rate: { currency in table[currency] })
    }
  }
}
// end

/// A stand-in for a rates service: each fetch gives the dollar a higher rate than the last.
enum RatesService {
  static let fetches = Mutex(0)

  static func fetch() async throws -> [String: Double] {
    let count = fetches.withLock { count in
      count += 1
      return count
    }
    return ["EUR": 1, "USD": 1 + Double(count) / 10]
  }
}

@Suite struct RenewalTest {
  @Test func ratesAreFetchedAgainOnceTheirHourIsUp() async throws {
    let clock = TestClock()
    let root = FeaturesRoot(clock: clock) { registry in
      registry.use(ExchangeRates.fetched())
    }
    let features = TestFeatures(root)  // a copy ages its instances on the tree's clock
    let first: ExchangeRates = try await features.instance()
    clock.advance(by: .seconds(3599))
    let fresh: ExchangeRates = try await features.instance()
    #expect(fresh.rate("USD") == first.rate("USD"))  // still within the hour: the same rates
    clock.advance(by: .seconds(1))
    let renewed: ExchangeRates = try await features.instance()
    #expect(renewed.rate("USD")! > first.rate("USD")!)  // expired: fetched again
  }

  @Test func aPatchedFeatureRenewsNothing() async throws {
    let features = TestFeatures()
    features.use(ExchangeRates(rate: { _ in 1.5 }))
    #expect(try await features.refresh(ExchangeRates.self).isEmpty)
    let rates: ExchangeRates = try await features.instance()
    #expect(rates.rate("USD") == 1.5)
  }
}
