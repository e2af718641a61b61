import Arbor
import ArborDemoFeatures
import Testing

@Suite struct CacheableLivesWhereRegisteredTests {
  @Test func aRootRegisteredCacheableIsOneInstanceForTheWholeTree() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Counter(name: "root", serial: loads.next()) })
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let request = try bob.branch(RequestScope.self, context: 7)
    let serials = try [ann, bob, request, root].map { try $0.instance(of: Counter.self).serial }
    #expect(serials == [1, 1, 1, 1])
    #expect(loads.value == 1)
  }

  @Test func aRootRegisteredCacheableCannotSeeASessionContext() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features in
          let session = try features.context(for: SessionScope.self)
          return Profile(user: { session.user })
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let error = #expect(throws: FeatureLoadingFailed.self) { try session.instance(of: Profile.self) }
    #expect(error?.cause is FeaturesScopeContextUnavailable)
  }

  @Test func aScopeRegisteredCacheableIsLoadedOncePerBranchWithThatBranchsView() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            loads.next()
            let session = try features.context(for: SessionScope.self)
            return Profile(user: { session.user })
          })
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try ann.branch(RequestScope.self, context: 1)
    // Requested first from below: still loaded in (and cached by) the session branch.
    #expect(try request.instance(of: Profile.self).user() == "ann")
    #expect(try ann.instance(of: Profile.self).user() == "ann")
    #expect(try ann.branch(RequestScope.self, context: 2).instance(of: Profile.self).user() == "ann")
    #expect(loads.value == 1)
  }

  @Test func aContextMakesACacheableAMultiton() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { (id: Int, _) in Account(id: id, serial: loads.next()) })
    }
    let first: Account = try root.instance(context: 1)
    let again: Account = try root.instance(context: 1)
    let second: Account = try root.instance(context: 2)
    #expect([first.id, again.id, second.id] == [1, 1, 2])
    #expect(first.serial == again.serial)
    #expect(first.serial != second.serial)
    #expect(loads.value == 2)
  }

  @Test func aDisposableIsLoadedForEveryRequestWithTheRequestingBranchsView() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (tag: String, features) in
          loads.next()
          let user = (try? features.context(for: SessionScope.self))?.user ?? "nobody"
          return Tagged(tag: "\(tag) for \(user)")
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: Tagged.self, context: "hi").tag == "hi for ann")
    #expect(try session.instance(of: Tagged.self, context: "hi").tag == "hi for ann")
    #expect(try root.instance(of: Tagged.self, context: "hi").tag == "hi for nobody")
    #expect(loads.value == 3)
  }
}
