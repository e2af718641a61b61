/// How the instances of one feature type are stored in place in a branch, and destroyed.
///
/// The feature's metatype, not a generic object per type: building a root with thousands of
/// cacheables instantiates no metadata for them.
package struct InstanceLayout: Sendable {
  package let feature: any Feature.Type
  package let size: Int
  package let alignment: Int

  /// The layout of `feature`'s instances.
  init(_ feature: any Feature.Type) {
    self.feature = feature
    (size, alignment) = Self.sizeAndAlignment(of: feature)
  }

  private static func sizeAndAlignment<F: Feature>(of feature: F.Type) -> (Int, Int) {
    (MemoryLayout<F>.size, MemoryLayout<F>.alignment)
  }

  /// Destroys the instance at `instance`.
  package func destroy(_ instance: UnsafeMutableRawPointer) {
    Self.destroy(feature, at: instance)
  }

  private static func destroy<F: Feature>(_ feature: F.Type, at instance: UnsafeMutableRawPointer) {
    instance.assumingMemoryBound(to: F.self).deinitialize(count: 1)
  }
}
