import Arbor
import ArborDemoFeatures
import Synchronization
import Testing

/// `which` says which implementation serves a feature here, where it was registered and where it
/// lives, or why none does; without loading anything.
@Suite struct WhichTests {
  let base = #line
  let root = FeaturesRoot { registry in
    registry.use(Clock(now: { 0 }))
    registry.use(.disposable(implementation: "console()") { _ in Printer.placeholder })
    registry.use(.cacheable(implementation: "live()") { _ in Checkout.placeholder })
    registry.use(.cacheable(implementation: "live()") { (tag: String, _) in Tagged(tag: tag) })
    registry.defineScope(SessionScope.self) { registry in
      registry.use(.cacheable(implementation: "live()") { _ in Greeter.placeholder })
    }
  }

  func session() throws -> Features { try root.branch(SessionScope.self, context: Session(user: "ann")) }

  @Test func aCacheableRegisteredInThisBranchsScopeLivesHere() throws {
    let which = try session().which(Greeter.self)
    #expect(which.implementation?.name == "Greeter.live()")
    #expect(which.implementation?.location?.description == site(base + 7))
    #expect(which.implementation?.scope == "SessionScope")
    #expect(which.implementation?.kind == .cacheable)
    #expect(which.implementation?.isCachedInAncestor == false)
    #expect(which.diagnostic == nil)
    #expect(
      String(describing: which) == """
        Greeter is served by Greeter.live()
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ registered at: \(site(base + 7)) in SessionScope
        ├─ kind: cacheable, one instance per branch
        └─ cached in: Root › SessionScope(Session(user: "ann")), this branch
        """)
    #expect(
      which.summary()
        == "Greeter is served by Greeter.live() (cacheable), registered at \(site(base + 7)) in SessionScope")
  }

  @Test func aCacheableRegisteredAtTheRootLivesInTheRootBranch() throws {
    let which = try session().which(Checkout.self)
    #expect(which.implementation?.isCachedInAncestor == true)
    #expect(which.implementation?.cachedIn == [.init(name: "Root")])
    #expect(
      which.renderedTree(style: .ascii) == """
        Checkout is served by Checkout.live()
        |- scope: Root > SessionScope(Session(user: "ann"))
        |- registered at: \(site(base + 4)) in Root
        |- kind: cacheable, one instance per branch
        `- cached in: Root, an ancestor: shared with every branch below it,
                      and its loader cannot see the contexts of this branch
        """)
  }

  @Test func staticDisposableAndPerContextFeaturesSayHowTheyLive() throws {
    let session = try session()
    #expect(
      String(describing: session.which(Clock.self)) == """
        Clock is served by Clock value
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ registered at: \(site(base + 2)) in Root
        └─ kind: static, one value for the whole tree
        """)
    #expect(
      String(describing: session.which(Printer.self)) == """
        Printer is served by Printer.console()
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ registered at: \(site(base + 3)) in Root
        └─ kind: disposable, a new instance for every request, loaded in the requesting branch
        """)
    let tagged = session.which(Tagged.self)
    #expect(tagged.implementation?.kind == .cacheablePerContext)
    #expect(tagged.implementation?.isCachedInAncestor == true)
    #expect(tagged.renderedTree().contains("├─ kind: cacheable, one instance per branch and context value\n"))
  }

  @Test func anAsyncLoaderIsShownAsOne() throws {
    let line = #line + 2
    let root = FeaturesRoot { registry in
      registry.use(.cacheable(implementation: "downloaded()") { _ async throws in TaxTable.placeholder })
    }
    let which = root.which(TaxTable.self)
    #expect(which.implementation?.isAsync == true)
    #expect(
      String(describing: which) == """
        TaxTable is served by TaxTable.downloaded()
        ├─ scope: Root
        ├─ registered at: \(site(line)) in Root
        ├─ kind: cacheable with an async loader, one instance per branch
        └─ cached in: Root, this branch
        """)
    #expect(
      which.summary()
        == "TaxTable is served by TaxTable.downloaded() (cacheable, async), registered at \(site(line)) in Root")
    #expect(try session().which(Greeter.self).implementation?.isAsync == false)
  }

  @Test func noImplementationGivesTheDiagnosticARequestWouldFailWith() throws {
    let line = #line + 1
    let which = root.which(Greeter.self)
    #expect(which.implementation == nil)
    #expect(which.diagnostic?.kind == "FeatureUndefined")
    #expect(
      String(describing: which) == """
        Greeter is not served here
        ├─ scope: Root
        └─ because: FeatureUndefined: no implementation of Greeter
           ├─ requested at: \(site(line))
           ├─ searched: Root
           ├─ registered in: Root › SessionScope, which is not on this branch's path
           └─ fix: register a loader for Greeter with registry.use(...) in FeaturesRoot
                   or request it from a branch of SessionScope
        """)
    #expect(
      which.summary()
        == "Greeter is not served here: FeatureUndefined: no implementation of Greeter (\(site(line)))")
  }

  @Test func itIsJSONWithTheKeysOfADiagnostic() throws {
    let served = try session().which(Checkout.self)
    #expect(
      served.json(pretty: false) == """
        {"feature":"Checkout","scope":[{"name":"Root","context":null},\
        {"name":"SessionScope","context":"Session(user: \\"ann\\")"}],\
        "implementation":{"name":"Checkout.live()","kind":"cacheable","isAsync":false,"runsOnMainActor":false,\
        "location":{"fileID":"\(#fileID)","line":\(base + 4)},"scope":"Root",\
        "cachedIn":[{"name":"Root","context":null}],"isCachedInAncestor":true,\
        "timeToLiveMilliseconds":null,"instance":null},"diagnostic":null}
        """)
    #expect(try session().which(Tagged.self).json().contains(#""kind": "cacheablePerContext","#))

    let none = root.which(Greeter.self)
    let diagnostic = try #require(none.diagnostic)
    #expect(
      none.json(pretty: false)
        == #"{"feature":"Greeter","scope":[{"name":"Root","context":null}],"implementation":null,"diagnostic":"#
        + diagnostic.json(pretty: false) + "}")
  }

  @Test func aConflictOrAReleasedBranchIsTheirDiagnostic() throws {
    let (built, reports) = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(.disposable(implementation: "console()") { _ in Printer.placeholder })
        registry.use(.disposable(implementation: "silent()") { _ in Printer.placeholder })
      }
    }
    #expect(reports.map(\.diagnostic.kind) == ["FeatureRegistrationConflict"])  // reported as the root is built
    #expect(built.which(Printer.self).diagnostic?.kind == "FeatureRegistrationConflict")

    let released = try featuresOfAReleasedBranch().which(Printer.self)
    #expect(released.diagnostic?.kind == "FeaturesReleased")
    #expect(released.scope.isEmpty)
  }

  @Test func aTestContainerServesUnregisteredFeaturesWithTheirPlaceholder() throws {
    let container = Features(Branch(root: RootDefinition.make { _ in }, overrides: PlaceholderOverrides()))
    let which = container.which(Greeter.self)
    #expect(which.implementation?.kind == .placeholder)
    #expect(
      String(describing: which) == """
        Greeter is served by Greeter.placeholder
        ├─ scope: Root
        └─ kind: placeholder, nothing is registered, so this test container resolves the placeholder
        """)
  }

  @Test func askingLoadsNothing() throws {
    let loads = Atomic<Int>(0)
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          loads.add(1, ordering: .relaxed)
          return Greeter.placeholder
        })
    }
    #expect(root.which(Greeter.self).implementation?.kind == .cacheable)
    #expect(loads.load(ordering: .relaxed) == 0)
    _ = try root.instance(of: Greeter.self)
    #expect(loads.load(ordering: .relaxed) == 1)
  }
}

/// The hook a test container installs, reduced to "everything unregistered is its placeholder".
private final class PlaceholderOverrides: FeatureOverrides {
  func instance<F: Feature>(
    of feature: F.Type, context: F.Context, in branch: Branch, at location: ArborDiagnostics.SourceLocation
  )
    -> F?
  { nil }
  func replaces(_ feature: any Feature.Type) -> Bool { false }
  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context? { nil }
  var resolvesPlaceholders: Bool { true }
  var givesScopeContexts: Bool { false }
}
