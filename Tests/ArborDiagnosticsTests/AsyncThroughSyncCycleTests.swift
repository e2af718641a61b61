import Arbor
import Testing

/// A cycle that closes through an async loader and a synchronous one is a cycle, with its whole
/// path: not a request that should have been awaited.
@Suite struct AsyncThroughSyncCycleTests {
  @Test func anAsyncLoaderWhoseDependencyRequestsItBackSynchronouslyIsACycle() async throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features async throws -> Checkout in
          _ = try await features.instance(of: TaxTable.self)
          return Checkout.placeholder
        })
      registry.use(
        .cacheable(implementation: "live()") { features -> TaxTable in
          _ = try features.instance(of: Checkout.self)
          return TaxTable.placeholder
        })
    }
    let line = #line + 1
    let error = await #expect(throws: CircularDependency.self) { try await root.instance(of: Checkout.self) }
    #expect(error?.path.map { String(describing: $0) } == ["Checkout", "TaxTable", "Checkout"])
    expectRenderings(
      of: error,
      tree: """
        CircularDependency: Checkout requires itself through TaxTable
        ├─ requested at: \(site(base + 9))
        ├─ scope: Root
        ├─ path: Checkout → TaxTable → Checkout
        ├─ requests: Checkout at \(site(line))
        │            TaxTable at \(site(base + 4))
        │            Checkout at \(site(base + 9))
        └─ fix: break the cycle: let Checkout or TaxTable resolve the other when a member is called, not in its loader
        """,
      line: "CircularDependency: Checkout requires itself through TaxTable (\(site(base + 9)))")
  }
}
