import Arbor
import ArborDemoFeatures
import Synchronization
import Testing

/// Diagnostics cost nothing until something fails: successful requests format nothing, and the
/// request site every call captures is two words with no reference to count.
@Suite struct ZeroCostTests {
  /// A context that counts how often it is described: only a diagnostic describes a context.
  struct Described: Sendable, Hashable, CustomStringConvertible {
    final class Counter: Sendable {
      let count = Atomic<Int>(0)
    }
    let counter: Counter
    var description: String {
      counter.count.add(1, ordering: .relaxed)
      return "Described"
    }
    static func == (lhs: Described, rhs: Described) -> Bool { lhs.counter === rhs.counter }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(counter)) }
  }

  enum DescribedScope: FeaturesScope { typealias Context = Described }

  @Test func successfulRequestsOfEveryKindFormatNothing() throws {
    let counter = Described.Counter()
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 0 }))
      registry.use(
        .disposable { features in
          _ = try features.instance(of: Clock.self)
          return Printer.placeholder
        })
      registry.use(.cacheable { (tag: String, _) in Tagged(tag: tag) })
      registry.defineScope(DescribedScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
        registry.use(
          .cacheable { features in
            _ = try features.context(for: DescribedScope.self)
            try features.require(DescribedScope.self)
            _ = try features.instance(of: Printer.self)
            return Greeter.placeholder
          })
      }
    }
    let branch = try root.branch(DescribedScope.self, context: Described(counter: counter))
    let request = try branch.branch(RequestScope.self, context: Request(id: 1))
    for _ in 0..<100 {
      _ = try request.instance(of: Greeter.self)
      _ = try request.instance(of: Printer.self)
      _ = try request.instance(of: Clock.self)
      _ = try request.instance(of: Tagged.self, context: "a")
      _ = try request.context(for: DescribedScope.self)
    }
    #expect(counter.count.load(ordering: .relaxed) == 0)

    // The probe works: the first failure in that branch describes its context.
    #expect(throws: FeatureUndefined.self) { try request.instance(of: Mailer.self) }
    #expect(counter.count.load(ordering: .relaxed) > 0)
  }

  @Test func aRequestSiteIsAStaticStringAndALineWithNothingToRetain() {
    #expect(_isPOD(Arbor.SourceLocation.self))
    #expect(MemoryLayout<Arbor.SourceLocation>.size == MemoryLayout<StaticString>.stride + MemoryLayout<UInt>.size)
  }
}
