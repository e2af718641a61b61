import Arbor

/// A property with a value type that is `Equatable`, as most are.
enum RequestTimeout: FeaturesProperty {
  static var defaultValue: Duration { .seconds(30) }
}

/// A property whose value is a `String`: not a trivial type, so reads copy a reference.
enum GreetingLocale: FeaturesProperty {
  static var defaultValue: String { "en" }
}

/// A property whose value is not `Equatable`.
enum Retry: FeaturesProperty {
  struct Policy: Sendable {
    var attempts: Int
  }
  static var defaultValue: Policy { Policy(attempts: 1) }
}

/// A property whose two fields a writer always keeps consistent: a read that mixed two writes
/// (a torn read) would break `isConsistent`.
enum Pair: FeaturesProperty {
  struct Value: Sendable, Equatable {
    var number: Int
    var text: String
    var isConsistent: Bool { text == "\(number)" }
  }
  static var defaultValue: Value { Value(number: 0, text: "0") }
}

/// A greeter that keeps the locale it was loaded with.
struct LocalizedGreeter: CacheableFeature {
  var locale: String
  static var placeholder: LocalizedGreeter { LocalizedGreeter(locale: "placeholder") }
}

/// A disposable that reads the locale when it is requested.
struct LocaleProbe: DisposableFeature {
  var locale: String
  static var placeholder: LocaleProbe { LocaleProbe(locale: "placeholder") }
}
