import Arbor

/// Generates a feature's `placeholder` and memberwise initialiser from its struct of closures.
///
/// Attach it to a struct that conforms to ``Arbor/StaticFeature``, ``Arbor/DisposableFeature`` or
/// ``Arbor/CacheableFeature``. It writes what you would write by hand:
///
/// - `static var placeholder`, in which every closure member is
///   `unimplemented("Type.member")`, so calling one reports `FeatureUnimplemented` as a hand-written
///   placeholder does, and a test patches it with `features.patch(\Type.member, with:)`. A member
///   that returns a value without throwing takes the value its placeholder returns from the
///   default written on it (`var now: @Sendable () -> Double = { 0 }`); a member that is not a
///   closure takes its default as it is.
/// - a memberwise initialiser, with the struct's access level (public for a public struct), so a
///   library's feature needs no hand-written `public init`.
///
/// ```swift
/// import Arbor
/// import ArborMacros
///
/// @Feature
/// public struct Clock: StaticFeature {
///   public var now: @Sendable () -> Double = { 0 }
///   public var sleep: @Sendable (_ seconds: Double) async throws -> Void
/// }
/// ```
///
/// When the struct declares `static var placeholder` itself, the macro generates only the
/// initialiser; when it declares the memberwise initialiser (its members as parameters, in order),
/// only the placeholder. A member the macro cannot expand (a typealiased closure type, an `inout` parameter,
/// a member inside `#if`, ...) is an error that says what to write instead.
@attached(member, names: named(init), named(placeholder))
public macro Feature() = #externalMacro(module: "ArborMacrosPlugin", type: "FeatureMacro")
