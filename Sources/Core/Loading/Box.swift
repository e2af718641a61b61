/// A value kept behind a reference: a static feature, or a cached instance published to readers.
@usableFromInline
package final class Box<Value: Sendable>: Sendable {
  @usableFromInline package let value: Value

  @usableFromInline
  package init(_ value: Value) {
    self.value = value
  }
}
