import Arbor

/// The language a session is greeted in: `en` unless the session, an ancestor or a registry sets
/// another.
///
/// ```swift
/// session[GreetingLocale.self] = "fr"
/// try session.instance(of: Greeter.self).greet()  // Bonjour ann
/// ```
public enum GreetingLocale: FeaturesProperty {
  /// English.
  public static var defaultValue: String { "en" }

  /// "Hello" in `locale`: `Bonjour` for `fr`, `Hallo` for `de`, else `Hello`.
  ///
  /// - Parameter locale: A value of the property.
  /// - Returns: The greeting word.
  public static func hello(in locale: String) -> String {
    switch locale {
    case "fr": "Bonjour"
    case "de": "Hallo"
    default: "Hello"
    }
  }
}
