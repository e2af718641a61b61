import Arbor
import ArborDemoFeatures
import Testing

/// Registries of thousands of features or scopes build, branch and resolve like small ones, in
/// time that grows with their size, not with its square.
@Suite struct BigRegistryTests {
  struct Resolve: TagVisitor {
    let features: Features
    var resolved = 0
    mutating func visit<T: Tag>(_ tag: T.Type, number: Int) throws {
      #expect(try features.instance(of: Numbered<T>.self).number == number)
      resolved += 1
    }
  }

  struct DefineScopes: TagVisitor {
    var registry: FeaturesRegistry<RootFeaturesScope>
    mutating func visit<T: Tag>(_ tag: T.Type, number: Int) {
      registry.defineScope(NumberedScope<T>.self) { registry in
        registry.use(.cacheable { _ in Numbered<T>(number: number) })
      }
    }
  }

  struct BranchScopes: TagVisitor {
    let features: Features
    var branched = 0
    mutating func visit<T: Tag>(_ tag: T.Type, number: Int) throws {
      let branch = try features.branch(NumberedScope<T>.self)
      #expect(try branch.instance(of: Numbered<T>.self).number == number)
      #expect(try branch.instance(of: Counter.self).name == "root")
      branched += 1
    }
  }

  @Test func aRootOf4096RegistrationsResolvesEachOfThem() throws {
    var register = RegisterNumbered()
    try forEachTag(below: 4096, &register)
    let root = FeaturesRoot { registry in
      for loader in register.loaders { registry.use(loader) }
      registry.defineScope(SessionScope.self) { _ in }
    }
    var resolve = Resolve(features: root)
    try forEachTag(below: 4096, &resolve)
    #expect(resolve.resolved == 4096)
    var throughSession = Resolve(features: try root.branch(SessionScope.self, context: Session(user: "ann")))
    try forEachTag(below: 4096, &throughSession)
    #expect(throughSession.resolved == 4096)
  }

  @Test func aRootOf1000SiblingScopesBranchesEachOfThem() throws {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Counter(name: "root", serial: 0) })
      var define = DefineScopes(registry: registry)
      try? forEachTag(below: 1000, &define)
      registry = define.registry
    }
    var branch = BranchScopes(features: root)
    try forEachTag(below: 1000, &branch)
    #expect(branch.branched == 1000)
  }
}
