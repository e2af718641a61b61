import Arbor
import Testing

/// A disposable whose context cannot be compared, requesting itself with another context: Arbor
/// cannot tell recursion from a cycle, and says exactly that.
@Suite struct IncomparableContextCycleTests {
  /// A context that is neither `Equatable` nor `Hashable`.
  struct Step: Sendable {
    var remaining: Int
  }

  struct Walker: DisposableFeature {
    typealias Context = Step
    static var placeholder: Walker { Walker() }
  }

  @Test func recursionWithAContextThatCannotBeComparedSaysSoAndHowToAllowIt() throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (step: Step, features) -> Walker in
          if step.remaining > 0 {
            _ = try features.instance(of: Walker.self, context: Step(remaining: step.remaining - 1))
          }
          return Walker()
        })
    }
    let line = #line + 1  // the macro reports the site of its closure's first line
    let error = #expect(throws: CircularDependency.self) {
      try root.instance(of: Walker.self, context: Step(remaining: 3))
    }
    expectRenderings(
      of: error,
      tree: """
        CircularDependency: Walker requests itself with a context of type Step, which cannot be compared: a request with another context cannot be told from a cycle
        ├─ requested at: \(site(base + 5))
        ├─ scope: Root
        ├─ path: Walker → Walker
        ├─ requests: Walker at \(site(line))
        │            Walker at \(site(base + 5))
        └─ fix: make Step Hashable: Arbor then runs a request with another context and reports only a request with the same one
        """,
      line:
        "CircularDependency: Walker requests itself with a context of type Step, which cannot be compared: a request with another context cannot be told from a cycle (\(site(base + 5)))"
    )
  }

  struct Hashed: DisposableFeature {
    typealias Context = Int
    var depth: Int
    static var placeholder: Hashed { Hashed(depth: -1) }
  }

  @Test func recursionWithAHashableContextRunsAndTheSameContextIsStillACycle() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (remaining: Int, features) -> Hashed in
          if remaining == 0 { return Hashed(depth: 0) }
          let next = remaining == 2 ? 3 : remaining - 1  // 3 → 2 → 3: the same request again
          return Hashed(depth: try features.instance(of: Hashed.self, context: next).depth + 1)
        })
    }
    #expect(try root.instance(of: Hashed.self, context: 1).depth == 1)
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Hashed.self, context: 3) }
    #expect(error?.path.map { String(describing: $0) } == ["Hashed", "Hashed", "Hashed"])
  }
}
