import Arbor
import ArborDemoFeatures
import Testing

enum RequestTimeout: FeaturesProperty {
  static var defaultValue: Duration { .seconds(30) }
}

/// `which(Property.self)` says where a property's value comes from, and what it hides: "why is the
/// timeout 30?".
@Suite struct PropertyOriginTests {
  let base = #line
  let root = FeaturesRoot { registry in
    registry.set(RequestTimeout.self, to: .seconds(10))
    registry.defineScope(SessionScope.self) { registry in
      registry.set(RequestTimeout.self, to: .seconds(5))
    }
  }

  func session() throws -> Features { try root.branch(SessionScope.self, context: Session(user: "ann")) }

  @Test func nothingSetsItSoItIsTheDefault() {
    let empty = FeaturesRoot { _ in }
    let origin = empty.which(RequestTimeout.self)
    #expect(origin.value?.kind == .default)
    #expect(origin.value?.value == "30.0 seconds")
    #expect(origin.hidden.isEmpty)
    #expect(
      String(describing: origin) == """
        RequestTimeout is 30.0 seconds
        ├─ scope: Root
        ├─ from: its defaultValue: nothing on this branch's path sets it
        └─ to change it: registry.set(RequestTimeout.self, to: ...) in a registry on the path,
                         or features[RequestTimeout.self] = ... on this branch or an ancestor
        """)
    #expect(origin.summary() == "RequestTimeout is 30.0 seconds, its defaultValue")
  }

  @Test func theNearestRegistryValueHidesTheOthers() throws {
    let origin = try session().which(RequestTimeout.self)
    #expect(origin.value?.kind == .registry)
    #expect(origin.value?.registry == "defineScope(SessionScope.self)")
    #expect(origin.value?.location?.description == site(base + 4))
    #expect(origin.hidden.map(\.kind) == [.registry, .default])
    #expect(
      String(describing: origin) == """
        RequestTimeout is 5.0 seconds
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ from: registry.set at \(site(base + 4)) in defineScope(SessionScope.self)
        └─ hides: 10.0 seconds, registry.set at \(site(base + 2)) in FeaturesRoot
                  30.0 seconds, its defaultValue
        """)
  }

  @Test func aSetOnAnAncestorWinsOverRegistryValues() throws {
    let session = try session()
    let line = #line + 1
    root[RequestTimeout.self] = .seconds(1)
    let origin = session.which(RequestTimeout.self)
    #expect(origin.value?.kind == .set)
    #expect(origin.value?.isThisBranch == false)
    #expect(origin.value?.branch == [Diagnostic.ScopeStep(name: "Root")])
    #expect(
      String(describing: origin) == """
        RequestTimeout is 1.0 seconds
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ from: set on Root, an ancestor, at \(site(line))
        └─ hides: 5.0 seconds, registry.set at \(site(base + 4)) in defineScope(SessionScope.self)
                  10.0 seconds, registry.set at \(site(base + 2)) in FeaturesRoot
                  30.0 seconds, its defaultValue
        """)
  }

  @Test func aSetOnThisBranchHidesItsAncestorsSets() throws {
    let session = try session()
    root[RequestTimeout.self] = .seconds(1)
    let line = #line + 1
    session[RequestTimeout.self] = .seconds(2)
    let origin = session.which(RequestTimeout.self)
    #expect(origin.value?.isThisBranch == true)
    #expect(origin.summary() == "RequestTimeout is 2.0 seconds, set on this branch at \(site(line))")
    #expect(origin.hidden.map(\.value) == ["1.0 seconds", "5.0 seconds", "10.0 seconds", "30.0 seconds"])
    #expect(
      session.which(RequestTimeout.self).renderedTree(style: .ascii).split(separator: "\n").first
        == "RequestTimeout is 2.0 seconds")
    #expect(root.which(RequestTimeout.self).value?.value == "1.0 seconds")  // not the session's
  }

  @Test func releasedFeaturesSayWhy() throws {
    // Features a loader kept, of a branch released since.
    struct Keeper: CacheableFeature {
      var features: Features
      static var placeholder: Keeper { fatalError("not used") }
    }
    let kept = try FeaturesRoot { registry in
      registry.use(.cacheable { features in Keeper(features: features) })
    }.instance(of: Keeper.self).features
    let line = #line + 1
    let origin = kept.which(RequestTimeout.self)
    #expect(origin.value == nil)
    #expect(origin.diagnostic?.kind == "FeaturesReleased")
    #expect(
      String(describing: origin) == """
        RequestTimeout cannot be read here
        └─ because: FeaturesReleased: the branch of these features was released
           ├─ requested at: \(site(line))
           └─ fix: keep the Features of the branch (or of a branch below it) while instances loaded from it are in use
        """)
  }
}
