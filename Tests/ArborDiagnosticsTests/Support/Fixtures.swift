import Arbor
import ArborDemoFeatures
import Synchronization
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
  let kept = Mutex<Features?>(nil)
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
