import Arbor

// The curves need thousands of distinct feature and scope types at run time, as a large app has
// them. Writing them out would bloat the source, so they are numbers written in types: `Bit1<Bit0<
// Bit1<Bits>>>` is 0b101, and every sequence of bits is a type of its own with its own metadata.

/// A number written as nested generic types.
protocol TypeNumber: Sendable {
  static var number: Int { get }
}

/// The empty sequence of bits: zero, and the innermost type of every number.
enum Bits: TypeNumber {
  static var number: Int { 0 }
}

/// The number `Rest` followed by a 0 bit.
enum Bit0<Rest: TypeNumber>: TypeNumber {
  static var number: Int { Rest.number * 2 }
}

/// The number `Rest` followed by a 1 bit.
enum Bit1<Rest: TypeNumber>: TypeNumber {
  static var number: Int { Rest.number * 2 + 1 }
}

/// The first `count` numbers written with `bits` bits each, in increasing order.
///
/// Every number has the same width, so that type names (which loaders interpolate) are equally long
/// at every point of a curve.
func typeNumbers(_ count: Int, bits: Int) -> [any TypeNumber.Type] {
  precondition(count <= 1 << bits, "\(count) numbers do not fit in \(bits) bits")
  var numbers: [any TypeNumber.Type] = []
  numbers.reserveCapacity(count)
  func append<Prefix: TypeNumber>(_ prefix: Prefix.Type, bitsLeft: Int) {
    guard numbers.count < count else { return }
    if bitsLeft == 0 { return numbers.append(prefix) }
    append(Bit0<Prefix>.self, bitsLeft: bitsLeft - 1)
    append(Bit1<Prefix>.self, bitsLeft: bitsLeft - 1)
  }
  append(Bits.self, bitsLeft: bits)
  return numbers
}

/// A cacheable feature, one type per number `N` (and per `Tag`, which keeps the types of different
/// samples of the `loaders` curve apart).
struct Numbered<Tag: TypeNumber, N: TypeNumber>: CacheableFeature {
  var value: @Sendable () -> Int

  static var placeholder: Self { Self(value: unimplemented("Numbered.value", placeholder: 0)) }
}

/// What the curves do with a numbered feature type, callable on its existential metatype.
protocol NumberedFeature: CacheableFeature where Context == NoContext {
  static func loader() -> FeatureLoader
  /// What a hand-written registry would keep for the type: a factory closure.
  static func factory() -> @Sendable () -> any Sendable
  /// The instance's value, resolved from `features`: the type's number when the wiring is right.
  static func value(in features: Features) throws -> Int
  static var number: Int { get }
}

extension Numbered: NumberedFeature {
  static func loader() -> FeatureLoader {
    .cacheable { _ in Self(value: { N.number }) }
  }

  static func factory() -> @Sendable () -> any Sendable {
    { Self(value: { N.number }) }
  }

  static func value(in features: Features) throws -> Int {
    try features.instance(of: Self.self).value()
  }

  static var number: Int { N.number }
}

/// The numbered feature types of `numbers`, tagged with `tag`.
func numberedFeatures<Tag: TypeNumber>(_ numbers: [any TypeNumber.Type], tag: Tag.Type) -> [any NumberedFeature.Type] {
  func feature<N: TypeNumber>(_ number: N.Type) -> any NumberedFeature.Type { Numbered<Tag, N>.self }
  return numbers.map { feature($0) }
}

/// The `index`-th tag of `bits` bits, as a type: `Numbered<tag, N>` differs for every tag.
func tagType(_ index: Int, bits: Int) -> any TypeNumber.Type {
  typeNumbers(index + 1, bits: bits)[index]
}

/// A scope, one type per number: the side-by-side scopes of the `siblings` curve.
enum Sibling<N: TypeNumber>: FeaturesScope {}

/// What the `siblings` curve does with a numbered scope type.
protocol SiblingScope: FeaturesScope where Context == Void {
  /// Defines the scope, with nothing in it, in the root's registry.
  static func define(in registry: inout FeaturesRegistry<RootFeaturesScope>)
  /// Makes `count` branches of the scope from `root`, dropping each at once.
  static func branch(from root: Features, count: Int)
}

extension Sibling: SiblingScope {
  static func define(in registry: inout FeaturesRegistry<RootFeaturesScope>) {
    registry.defineScope(Self.self) { _ in }
  }

  static func branch(from root: Features, count: Int) {
    for _ in 0..<count { blackHole(try! root.branch(Self.self)) }
  }
}

/// The sibling scope types of `numbers`.
func siblingScopes(_ numbers: [any TypeNumber.Type]) -> [any SiblingScope.Type] {
  func scope<N: TypeNumber>(_ number: N.Type) -> any SiblingScope.Type { Sibling<N>.self }
  return numbers.map { scope($0) }
}
