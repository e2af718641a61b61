import Arbor

// The features, scopes and errors the diagnostics tests fail with. Loaders are written in the
// tests themselves, so that every expected request site is a line of the test that checks it.

struct Session: Sendable, Hashable {
  var user: String
}

struct Request: Sendable, Hashable {
  var id: Int
}

enum SessionScope: FeaturesScope { typealias Context = Session }
enum RequestScope: FeaturesScope { typealias Context = Request }
enum AdminScope: FeaturesScope {}

/// A static feature.
struct Clock: StaticFeature {
  var now: @Sendable () -> Double
  static var placeholder: Clock { Clock(now: unimplemented("Clock.now", placeholder: 0)) }
}

/// A disposable feature.
struct Printer: DisposableFeature {
  var print: @Sendable (String) throws -> Void
  static var placeholder: Printer { Printer(print: unimplemented("Printer.print")) }
}

/// A cacheable feature.
struct Greeter: CacheableFeature {
  var greet: @Sendable () throws -> Void
  static var placeholder: Greeter { Greeter(greet: unimplemented("Greeter.greet")) }
}

/// A disposable feature nobody registers in most trees.
struct Mailer: DisposableFeature {
  var send: @Sendable (String) throws -> Void
  static var placeholder: Mailer { Mailer(send: unimplemented("Mailer.send")) }
}

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
