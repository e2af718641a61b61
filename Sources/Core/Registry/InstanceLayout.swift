/// How the instances of one feature type are stored in place in a branch, and destroyed.
///
/// The feature's metatype alone, not a generic object per type: building a root with thousands
/// of cacheables instantiates no metadata for them, and each unit's record stays small.
package struct InstanceLayout: Sendable {
  package let feature: any Feature.Type

  /// The layout of `feature`'s instances.
  init(_ feature: any Feature.Type) {
    self.feature = feature
  }

  package var size: Int { Self.size(of: feature) }
  package var alignment: Int { Self.alignment(of: feature) }

  private static func size<F: Feature>(of feature: F.Type) -> Int { MemoryLayout<F>.size }
  private static func alignment<F: Feature>(of feature: F.Type) -> Int { MemoryLayout<F>.alignment }

  /// Destroys the instance at `instance`.
  func destroy(_ instance: ErasedInPlace) {
    Self.destroy(feature, at: instance)
  }

  private static func destroy<F: Feature>(_ feature: F.Type, at instance: ErasedInPlace) {
    instance.deinitialize(as: F.self)
  }
}
