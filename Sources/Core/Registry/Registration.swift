/// One registered implementation: a static value or a loader, with its name and site.
package final class Registration: Sendable {
  /// How instances of the feature live.
  package enum Kind: UInt8, Sendable {
    case `static`
    case disposable
    case cacheable
  }

  package let feature: any Feature.Type
  package let kind: Kind
  /// A `Box<F>` for a static feature, a `Loader<F>` otherwise.
  package let payload: any AnyObject & Sendable
  package let implementation: String
  package let location: SourceLocation
  /// Whether a cacheable is selected by a context value (a multiton).
  package let isContextual: Bool
  /// Whether the loader is `async`: only `try await features.instance()` can run it.
  package let isAsync: Bool

  /// - Parameter isAsync: Whether `payload` is an `AsyncLoader`: the factories know, which spares
  ///   a dynamic conformance check per new feature type.
  package init(
    feature: any Feature.Type, kind: Kind, payload: any AnyObject & Sendable, isAsync: Bool, implementation: String,
    location: SourceLocation
  ) {
    self.feature = feature
    self.kind = kind
    self.payload = payload
    self.implementation = implementation
    self.location = location
    self.isContextual = kind == .cacheable && contextType(of: feature) != NoContext.self
    self.isAsync = isAsync
  }

  package var featureID: ObjectIdentifier { ObjectIdentifier(feature) }
}

private func contextType<F: Feature>(of feature: F.Type) -> any Any.Type { F.Context.self }
