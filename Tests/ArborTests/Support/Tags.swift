import Arbor

/// Type-level numbers, to make thousands of distinct feature and scope types at run time: the tag
/// of `n` below `2^depth` spells `n`'s bits, `Bit1<Bit0<Bits>>` for 2 of depth 2.
protocol Tag: SendableMetatype {}
enum Bits: Tag {}
enum Bit0<Rest: Tag>: Tag {}
enum Bit1<Rest: Tag>: Tag {}

/// A cacheable of its own type for each tag, whose instance says which tag loaded it.
struct Numbered<T: Tag>: CacheableFeature {
  var number: Int
  static var placeholder: Numbered { Numbered(number: -1) }
}

/// A scope of its own type for each tag.
enum NumberedScope<T: Tag>: FeaturesScope {}

/// Something done with the tag of each number.
protocol TagVisitor {
  mutating func visit<T: Tag>(_ tag: T.Type, number: Int) throws
}

/// Visits the tags of `0..<count`, in order.
func forEachTag(below count: Int, _ visitor: inout some TagVisitor) throws {
  var depth = 0
  while 1 << depth < count { depth += 1 }
  try visitTags(Bits.self, depth: depth, prefix: 0, below: count, &visitor)
}

private func visitTags<T: Tag>(
  _ tag: T.Type, depth: Int, prefix: Int, below count: Int, _ visitor: inout some TagVisitor
) throws {
  guard prefix << depth < count else { return }
  guard depth > 0 else { return try visitor.visit(tag, number: prefix) }
  try visitTags(Bit0<T>.self, depth: depth - 1, prefix: prefix << 1, below: count, &visitor)
  try visitTags(Bit1<T>.self, depth: depth - 1, prefix: prefix << 1 | 1, below: count, &visitor)
}

/// Registers a cacheable `Numbered<T>` for every tag visited, numbered as the tag.
struct RegisterNumbered: TagVisitor {
  var loaders: [FeatureLoader] = []
  mutating func visit<T: Tag>(_ tag: T.Type, number: Int) {
    loaders.append(.cacheable { _ in Numbered<T>(number: number) })
  }
}
