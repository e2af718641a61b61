/// A feature interface: a struct of closures with a ``placeholder``.
///
/// You do not conform to `Feature` directly: pick the protocol that is the feature's lifetime,
/// ``StaticFeature``, ``DisposableFeature`` or ``CacheableFeature``.
///
/// ```swift
/// struct Printer: DisposableFeature {
///   var print: @Sendable (String) -> Void
///   static var placeholder: Printer { Printer(print: unimplemented("Printer.print")) }
/// }
/// ```
public protocol Feature: Sendable {
  /// What a request for the feature passes to its loader; `Void` when it takes nothing.
  ///
  /// Declare it with a typealias: `typealias Context = String`. A ``CacheableFeature``'s default is
  /// ``NoContext``, not `Void`: its context keys its cache, so it must be `Hashable`, which `Void`
  /// (a tuple) cannot be.
  associatedtype Context: Sendable = Void

  /// The feature with every member unimplemented: what a test container resolves until patched.
  ///
  /// Build it with ``unimplemented(_:file:line:)-6zcdy`` for each member that returns nothing,
  /// ``unimplemented(_:file:line:)-99idb`` for one that throws, and
  /// ``unimplemented(_:placeholder:file:line:)`` for one that returns a value without throwing.
  static var placeholder: Self { get }
}

/// A feature with one value for the whole tree, registered at the root; resolving it loads nothing.
///
/// ```swift
/// struct Clock: StaticFeature {
///   var now: @Sendable () -> Double
///   static var placeholder: Clock { Clock(now: unimplemented("Clock.now", placeholder: 0)) }
/// }
/// let root = FeaturesRoot { registry in registry.use(Clock(now: { 0 })) }
/// ```
public protocol StaticFeature: Feature where Context == Void {}

/// A feature whose loader runs for every request: each request gets a new instance.
///
/// A disposable is loaded with the view of the branch that requests it, so it sees that branch's
/// contexts and features wherever it is registered. Its `Context`, `Void` unless you declare one, is
/// passed by ``Features/instance(of:context:file:line:)``.
///
/// ```swift
/// struct Printer: DisposableFeature {
///   var print: @Sendable (String) -> Void
///   static var placeholder: Printer { Printer(print: unimplemented("Printer.print")) }
/// }
/// ```
public protocol DisposableFeature: Feature {}

/// A feature loaded once per branch (and per context value) and cached there.
///
/// It lives in the nearest branch, walking up, whose scope registers it, and its loader sees that
/// branch's features. A `Context` makes it a multiton: one instance per distinct context value.
///
/// Without a declared `Context`, a cacheable's is ``NoContext``, where a disposable's or a static
/// feature's is `Void`: the context keys the cache, so it must be `Hashable`, and `Void` cannot be.
/// A generic helper over cacheables without a context says `where F.Context == NoContext`; one
/// written `where F.Context == Void` fails to compile for them ("no type for 'F.Context' can satisfy
/// both 'F.Context == ()' and 'F.Context : Equatable'").
///
/// ```swift
/// struct Greeter: CacheableFeature {
///   var greet: @Sendable () throws -> Void
///   static var placeholder: Greeter { Greeter(greet: unimplemented("Greeter.greet")) }
/// }
/// ```
public protocol CacheableFeature: Feature where Context: Hashable {
  /// The value that selects one of the cached instances; ``NoContext`` unless you declare one.
  associatedtype Context = NoContext
}

/// The context of a cacheable feature that takes none: there is one instance per branch.
///
/// A cacheable's context keys its cache, so it is `Hashable`; `Void` is a tuple and cannot be, so a
/// cacheable that declares no `Context` has this one where other features have `Void`. You never
/// write it in a request: requests for such features omit the context. You write it in generic code
/// (`where F.Context == NoContext`) and in an implementation type's `init(context:features:)`.
///
/// ```swift
/// let greeter: Greeter = try features.instance()  // Greeter.Context == NoContext
/// ```
public struct NoContext: Hashable, Sendable, CustomStringConvertible {
  /// The only value.
  public init() {}
  /// An empty string: there is nothing to show.
  public var description: String { "" }
}
