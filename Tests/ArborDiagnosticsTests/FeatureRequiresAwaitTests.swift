import Arbor
import Testing

/// `FeatureRequiresAwait`'s fix never asks for what the code already does: a synchronous request
/// made in a task (a synchronous function called from async code, or top-level code, where Swift
/// picks the synchronous `instance` under `try await`) says where to await instead.
@Suite struct FeatureRequiresAwaitTests {
  static func root() -> Features {
    FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "downloaded()", file: "App/TaxTable.swift", line: 4) { _ async throws in
          TaxTable.placeholder
        }, file: "App/Main.swift", line: 14)
      registry.use(
        .disposable(implementation: "quoted()", file: "App/Pricing.swift", line: 6) { _ async throws in
          Pricing.placeholder
        }, file: "App/Main.swift", line: 15)
    }
  }

  /// A synchronous function an app calls: synchronous code, whatever calls it.
  static func requestSynchronously<F: Feature>(_ feature: F.Type, context: F.Context, from root: Features) throws {
    _ = try root.instance(of: feature, context: context, file: "App/Handler.swift", line: 8)
  }

  /// The rendered error of a synchronous request for `feature`.
  static func requiresAwait<F: Feature>(_ feature: F.Type, context: F.Context) throws -> String {
    let error = #expect(throws: FeatureRequiresAwait.self) {
      try requestSynchronously(feature, context: context, from: root())
    }
    return String(reflecting: try #require(error))
  }

  /// The rendered error for TaxTable (a cacheable) or Pricing (a disposable), with `fix`.
  static func expected(_ feature: String, fix: String) -> String {
    let (implementation, line) = feature == "TaxTable" ? ("downloaded()", 14) : ("quoted()", 15)
    return """
      FeatureRequiresAwait: \(feature) is loaded asynchronously
      ├─ requested at: App/Handler.swift:8
      ├─ scope: Root
      ├─ implementation: \(feature).\(implementation) registered at App/Main.swift:\(line) in Root
      └─ fix: \(fix)
      """
  }

  /// The fix's last line for a cacheable: a synchronous request is served once it was awaited.
  static let cachedLine = ",\n        or await it once in this branch before synchronous requests"

  @Test func outsideAnyTaskTheFixIsToAwait() throws {
    let fix = "request it with `try await features.instance()`"
    #expect(
      try outsideAnyTask { try Self.requiresAwait(TaxTable.self, context: NoContext()) }
        == Self.expected("TaxTable", fix: fix + Self.cachedLine))
    #expect(
      try outsideAnyTask { try Self.requiresAwait(Pricing.self, context: ()) } == Self.expected("Pricing", fix: fix))
  }

  @Test func inATaskTheFixSaysWhereToAwaitAndWhatTopLevelCodeDoes() async throws {
    let fix = """
      request it with `try await features.instance()` from async code (an async function or loader),
              not from a synchronous function it calls; in top-level code (main.swift), where Swift makes this
              synchronous request even under `try await`, move the code into an async function,
              such as `static func main() async throws` of an `@main` type
      """
    #expect(
      try Self.requiresAwait(TaxTable.self, context: NoContext())
        == Self.expected("TaxTable", fix: fix + Self.cachedLine))
    #expect(try Self.requiresAwait(Pricing.self, context: ()) == Self.expected("Pricing", fix: fix))
  }

  @Test func aSynchronousLoaderRunByAnAwaitedRequestIsInATask() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "downloaded()", file: "App/TaxTable.swift", line: 4) { _ async throws in
          TaxTable.placeholder
        }, file: "App/Main.swift", line: 14)
      registry.use(
        .cacheable(implementation: "live()", file: "App/Checkout.swift", line: 9) { features in
          let table: TaxTable = try features.instance(file: "App/Checkout.swift", line: 11)
          return Checkout(total: { try table.rate() })
        }, file: "App/Main.swift", line: 16)
    }
    let error = await #expect(throws: FeatureLoadingFailed.self) { _ = try await root.instance(of: Checkout.self) }
    let cause = try #require(error?.cause as? FeatureRequiresAwait)
    #expect(cause.diagnostic.fix?.hasPrefix("request it with `try await features.instance()` from async code") == true)
  }
}
