import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Testing

// The features, scopes and errors the diagnostics tests fail with, beside the demo's (Session,
// SessionScope, Clock, Printer, Greeter, Mailer). Loaders are written in the tests themselves, so
// that every expected request site is a line of the test that checks it.

struct Request: Sendable, Hashable {
  var id: Int
}

enum RequestScope: FeaturesScope { typealias Context = Request }
enum AdminScope: FeaturesScope {}

/// A cacheable feature with a context: one instance per tag.
struct Tagged: CacheableFeature {
  typealias Context = String
  var tag: String
  static var placeholder: Tagged { Tagged(tag: "") }
}

/// The three features of a resolution chain: Checkout loads Pricing, which loads TaxTable.
struct Checkout: CacheableFeature {
  var total: @Sendable () throws -> Int
  static var placeholder: Checkout { Checkout(total: unimplemented("Checkout.total")) }
}

struct Pricing: DisposableFeature {
  var price: @Sendable (String) throws -> Int
  static var placeholder: Pricing { Pricing(price: unimplemented("Pricing.price")) }
}

struct TaxTable: CacheableFeature {
  var rate: @Sendable () throws -> Int
  static var placeholder: TaxTable { TaxTable(rate: unimplemented("TaxTable.rate")) }
}

/// A feature whose loader builds a main-actor model.
struct SettingsPanel: CacheableFeature {
  var title: @MainActor @Sendable () -> String
  static var placeholder: SettingsPanel { SettingsPanel(title: { "" }) }
}

/// An error of the user's own, not an Arbor one: a loader's cause is its description.
struct Offline: Error, CustomStringConvertible {
  var description: String { "the network is down" }
}

/// A user's own error that carries a diagnostic: it nests as a tree.
struct QuotaExceeded: DiagnosticError {
  var diagnostic: Diagnostic {
    Diagnostic(kind: "QuotaExceeded", message: "100 of 100 mails sent today", fix: "wait until midnight UTC")
  }
}

/// The features a loader received, kept after the branch they belong to was released: every
/// request through them fails with `FeaturesReleased`.
func featuresOfAReleasedBranch() throws -> Features {
  let kept = Lock<Features?>.make(nil)
  do {
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { features in
          kept.withLock { $0 = features }
          return Printer.placeholder
        })
    }
    _ = try root.instance(of: Printer.self)
  }
  return try #require(kept.withLock { $0 })
}

/// A cacheable that holds a resource: its teardown closes it.
struct Database: CacheableFeature {
  var close: @Sendable () async throws -> Void
  static var placeholder: Database { Database(close: unimplemented("Database.close")) }
}

/// A second resource, for teardowns that fail together.
struct SearchIndex: CacheableFeature {
  var flush: @Sendable () async throws -> Void
  static var placeholder: SearchIndex { SearchIndex(flush: unimplemented("SearchIndex.flush")) }
}

/// A session tree whose `Database` and `SearchIndex` teardowns throw `Offline`, as if the network
/// had gone while the session closed.
func sessionWithFailingTeardowns(file: StaticString = #fileID) -> Features {
  FeaturesRoot { registry in
    registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
      registry.use(
        .cacheable(implementation: "live()", file: "App/Database.swift", line: 8) { _ in
          Database(close: { throw Offline() })
        } teardown: { database in
          try await database.close()
        }, file: "App/Main.swift", line: 14)
      registry.use(
        .cacheable(implementation: "live()", file: "App/SearchIndex.swift", line: 5) { _ in
          SearchIndex(flush: { throw Offline() })
        } teardown: { index in
          try await index.flush()
        }, file: "App/Main.swift", line: 15)
    }
  }
}
