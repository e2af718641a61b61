import Arbor
import ArborDiagnostics
import Testing

/// A cacheable with a context that is not equal to itself (NaN): it could never be found in the
/// cache again, so the request fails, and says why, instead of loading another instance each time.
@Suite struct ContextNotEqualToItselfTests {
  struct Quote: CacheableFeature {
    typealias Context = Double
    static var placeholder: Quote { Quote() }
  }

  @Test(arguments: [false, true])
  func aNaNContextFailsTheRequestAndSaysWhy(async: Bool) async throws {
    let loads = Lock<Int>.make(0)
    let base = #line
    let root = FeaturesRoot { registry in
      if async {
        registry.use(
          .cacheable(implementation: "live()") { (_: Double, _) async -> Quote in
            loads.withLock { $0 += 1 }
            return Quote()
          })
      } else {
        registry.use(
          .cacheable(implementation: "live()") { (_: Double, _) -> Quote in
            loads.withLock { $0 += 1 }
            return Quote()
          })
      }
    }
    // A synchronous request, which an async function cannot make directly.
    func request(_ root: Features, line: UInt) throws {
      _ = try root.instance(of: Quote.self, context: .nan, file: #fileID, line: line)
    }
    let line = #line + 1  // the macro reports the site of its closure's first line
    let error = await #expect(throws: FeatureLoadingFailed.self) {
      if async {
        _ = try await root.instance(of: Quote.self, context: .nan)
      } else {
        try request(root, line: UInt(line))
      }
    }
    let registered = async ? base + 3 : base + 9
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Quote
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ implementation: Quote.live() registered at \(site(registered)) in Root
        └─ cause: FeatureContextNotEqualToItself: the context nan of Quote is not equal to itself
           ├─ requested at: \(site(line))
           └─ fix: give Quote a context whose == holds of equal values; an instance is cached by its
                   context, and this one could never be found again
        """,
      line: "FeatureLoadingFailed: could not load Quote (\(site(line))) ← FeatureContextNotEqualToItself: "
        + "the context nan of Quote is not equal to itself (\(site(line)))")
    #expect(loads.withLock { $0 } == 0)
    // Any other context loads once, as always.
    _ = try await root.instance(of: Quote.self, context: 1.5)
    _ = try await root.instance(of: Quote.self, context: 1.5)
    #expect(loads.withLock { $0 } == 1)
    try await root.close()
  }
}
