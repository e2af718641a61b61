import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// Loaders read the properties of the branch they load in; an instance keeps the values it was
/// loaded with, and follows changes only by observing them.
@Suite struct PropertyLoaderTests {
  struct Holder: CacheableFeature {
    var features: Features
    static var placeholder: Holder { fatalError("not used") }
  }

  /// A greeter that follows the locale: the pattern for what must change with a property.
  struct FollowingGreeter: CacheableFeature {
    var locale: @Sendable () -> String
    static var placeholder: FollowingGreeter { FollowingGreeter(locale: { "placeholder" }) }
  }

  static func root(loads: Tally = Tally()) -> Features {
    FeaturesRoot { registry in
      registry.set(GreetingLocale.self, to: "en")
      registry.use(
        .cacheable { features in
          loads.next()
          return LocalizedGreeter(locale: features[GreetingLocale.self])
        })
      registry.defineScope(SessionScope.self) { registry in
        registry.set(GreetingLocale.self, to: "fr")
        registry.use(.disposable { features in LocaleProbe(locale: features[GreetingLocale.self]) })
        registry.use(.cacheable { features in Holder(features: features) })
        registry.use(
          .cacheable { (id: Int, features) in
            Account(id: id, serial: features[RequestTimeout.self] == .seconds(1) ? 1 : 0)
          })
        registry.use(
          .cacheable { features in
            let locale = Lock<String>.make(features[GreetingLocale.self])
            let changes = features.observe(GreetingLocale.self)
            Task {
              for await value in changes { locale.withLock { $0 = value } }
            }
            return FollowingGreeter(locale: { locale.withLock { $0 } })
          })
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
  }

  @Test func aLoaderReadsThePropertiesOfTheBranchItLoadsIn() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: LocaleProbe.self).locale == "fr")
    // A cacheable lives where it is registered: the root's, loaded with the root's view.
    #expect(try session.instance(of: LocalizedGreeter.self).locale == "en")
    let request = try session.branch(RequestScope.self, context: 1)
    request[GreetingLocale.self] = "de"
    #expect(try request.instance(of: LocaleProbe.self).locale == "de")  // loaded in the requesting branch
  }

  @Test func anInstanceKeepsTheValueItWasLoadedWith() throws {
    let loads = Tally()
    let root = Self.root(loads: loads)
    let greeter: LocalizedGreeter = try root.instance()
    root[GreetingLocale.self] = "de"
    #expect(greeter.locale == "en")
    #expect(try root.instance(of: LocalizedGreeter.self).locale == "en")  // not loaded again
    #expect(loads.value == 1)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: LocaleProbe.self).locale == "de")  // a disposable loads each time
  }

  @Test func aMultitonLoaderReadsTheValueOfItsBranch() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: Account.self, context: 1).serial == 0)
    session[RequestTimeout.self] = .seconds(1)
    #expect(try session.instance(of: Account.self, context: 1).serial == 0)  // kept
    #expect(try session.instance(of: Account.self, context: 2).serial == 1)  // a new context loads now
  }

  @Test func asyncLoadersReadPropertiesToo() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features async throws in
            await Task.yield()
            return LocalizedGreeter(locale: features[GreetingLocale.self])
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    session[GreetingLocale.self] = "it"
    let greeter: LocalizedGreeter = try await session.instance()
    #expect(greeter.locale == "it")
    root[GreetingLocale.self] = "es"
    #expect(try await session.instance(of: LocalizedGreeter.self).locale == "it")
  }

  @Test func featuresAnInstanceKeptReadTheCurrentValue() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let holder: Holder = try session.instance()
    #expect(holder.features[GreetingLocale.self] == "fr")
    session[GreetingLocale.self] = "nl"
    #expect(holder.features[GreetingLocale.self] == "nl")
    holder.features[GreetingLocale.self] = "pt"  // a loader's features set on their branch
    #expect(session[GreetingLocale.self] == "pt")
  }

  @Test func anInstanceThatMustFollowAPropertyObservesIt() async throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let greeter: FollowingGreeter = try synchronously { try session.instance() }
    #expect(greeter.locale() == "fr")
    session[GreetingLocale.self] = "sv"
    #expect(await eventually { greeter.locale() == "sv" })
    root[GreetingLocale.self] = "fi"  // the session sets its own: not seen
    session[GreetingLocale.self] = "da"
    #expect(await eventually { greeter.locale() == "da" })
  }

  @Test func contextsAndPropertiesTogether() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 7)
    request[GreetingLocale.self] = "ja"
    #expect(try request.context(for: RequestScope.self) == 7)
    #expect(try request.context(ifPresent: SessionScope.self)?.user == "ann")
    #expect(request[GreetingLocale.self] == "ja")
    #expect(session[GreetingLocale.self] == "fr")
  }
}
