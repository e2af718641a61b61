import Arbor
import Testing

@Suite struct CyclesTests {
  @Test func aLoaderThatRequestsItselfThroughOthersFailsWithTheWholePath() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features in
          _ = try features.instance(of: Beta.self)
          return Alpha()
        })
      registry.use(
        .cacheable { features in
          _ = try features.instance(of: Alpha.self)
          return Beta()
        })
    }
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Alpha.self) }
    #expect(error?.path.map { String(describing: $0) } == ["Alpha", "Beta", "Alpha"])
    #expect(error?.diagnostic.path.map(\.feature) == ["Alpha", "Beta", "Alpha"])
  }

  @Test func aDisposableThatRequestsItselfFails() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { features in
          _ = try features.instance(of: Gamma.self)
          return Gamma()
        })
    }
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Gamma.self) }
    #expect(error?.path.map { String(describing: $0) } == ["Gamma", "Gamma"])
  }

  @Test func aCycleIsNotCachedAndNothingHangsAfterIt() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features in
          _ = try features.instance(of: Alpha.self)
          return Alpha()
        })
    }
    #expect(throws: CircularDependency.self) { try root.instance(of: Alpha.self) }
    #expect(throws: CircularDependency.self) { try root.instance(of: Alpha.self) }
  }

  @Test func aCycleAcrossTwoThreadsFailsInsteadOfDeadlocking() throws {
    // Alpha's loader (thread 0) waits until Beta's loader (thread 1) has started, and the other way
    // round, so each then requests a feature whose load the other thread owns.
    let alphaStarted = Flag()
    let betaStarted = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features in
          alphaStarted.raise()
          _ = betaStarted.wait()
          _ = try features.instance(of: Beta.self)
          return Alpha()
        })
      registry.use(
        .cacheable { features in
          betaStarted.raise()
          _ = alphaStarted.wait()
          _ = try features.instance(of: Alpha.self)
          return Beta()
        })
    }
    let errors = Collected<String>()
    onThreads(2) { index in
      do {
        if index == 0 { _ = try root.instance(of: Alpha.self) } else { _ = try root.instance(of: Beta.self) }
        errors.append("no error")
      } catch let error as CircularDependency {
        errors.append("CircularDependency " + error.path.map { String(describing: $0) }.joined(separator: " → "))
      } catch let error as FeatureLoadingFailed {
        errors.append("FeatureLoadingFailed \(type(of: error.cause))")
      } catch {
        errors.append("\(error)")
      }
    }
    // The thread that closes the loop sees the cycle; the other sees its dependency fail with it.
    #expect(errors.all.count == 2)
    #expect(errors.all.contains { $0.hasPrefix("CircularDependency") })
    #expect(errors.all.allSatisfy { $0 != "no error" })
  }

  @Test func recursionThroughDifferentContextsIsNotACycle() throws {
    struct Depth: DisposableFeature {
      typealias Context = Int
      var value: Int
      static var placeholder: Depth { Depth(value: -1) }
    }
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (level: Int, features) in
          level == 0
            ? Depth(value: 0) : Depth(value: 1 + (try features.instance(of: Depth.self, context: level - 1)).value)
        })
    }
    #expect(try root.instance(of: Depth.self, context: 5).value == 5)
  }
}
