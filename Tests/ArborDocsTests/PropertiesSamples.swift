// The samples of the README's Properties section and of Sources/Core/Arbor.docc/Properties.md, compiled and run by
// the test suite (DocsSamplesTests checks that the guides show this code).
import Arbor
import Testing

// sample: README
enum RequestTimeout: FeaturesProperty {
  static var defaultValue: Duration { .seconds(30) }
}

func propertiesTour() async throws -> [Duration] {
  let root: Features = FeaturesRoot { registry in
    registry.set(RequestTimeout.self, to: .seconds(10))  // the root's value
    registry.defineScope(SessionScope.self) { registry in
      registry.set(RequestTimeout.self, to: .seconds(5))  // where every session starts
    }
  }
  let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
  let changes = session.observe(RequestTimeout.self)  // the current value, then every change
  session[RequestTimeout.self] = .seconds(1)  // this branch and every branch below it
  print(session.which(RequestTimeout.self))  // where the value comes from, and what it hides
  var seen: [Duration] = []
  for await timeout in changes.prefix(2) { seen.append(timeout) }
  return [root[RequestTimeout.self]] + seen  // 10 s at the root; 5 s, then 1 s in the session
}
// end

// sample: declaring
enum GreetingLocale: FeaturesProperty {
  static var defaultValue: String { "en" }
}
// end

// sample: cascading
func cascade() throws -> [String] {
  let root: Features = FeaturesRoot { registry in
    registry.set(GreetingLocale.self, to: "en-GB")  // every branch, unless a nearer one says otherwise
    registry.defineScope(SessionScope.self) { registry in
      registry.set(GreetingLocale.self, to: "fr")  // every session branch, and below
    }
    registry.defineScope(RequestScope.self) { _ in }
  }
  let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
  let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
  let request = try ann.branch(RequestScope.self, context: 1)
  ann[GreetingLocale.self] = "de"  // ann and her requests; not bob, not the root
  return [root, ann, bob, request].map { $0[GreetingLocale.self] }  // ["en-GB", "de", "fr", "de"]
}
// end

// sample: loaders
struct Salutation: CacheableFeature {
  var hello: @Sendable (String) -> String
  static var placeholder: Salutation { Salutation(hello: unimplemented("Salutation.hello", placeholder: "")) }
}

extension Salutation {
  /// Reads the locale as it loads: the instance keeps that value, whatever happens later.
  static func loadedOnce() -> FeatureLoader {
    .cacheable { features in
      let locale = features[GreetingLocale.self]
      return Salutation(hello: { name in locale == "fr" ? "Bonjour \(name)" : "Hello \(name)" })
    }
  }

  /// Reads the locale at every greeting, through the features it keeps: it follows every set.
  static func current() -> FeatureLoader {
    .cacheable { features in
      Salutation(hello: { name in features[GreetingLocale.self] == "fr" ? "Bonjour \(name)" : "Hello \(name)" })
    }
  }
}
// end

// sample: observing
/// Runs `apply` with the session's locale now, then with every change, until the session is released.
func follow(_ session: Features, _ apply: @escaping @Sendable (String) async -> Void) -> Task<Void, Never> {
  let changes = session.observe(GreetingLocale.self)  // before the task starts: no change is missed
  return Task {
    for await locale in changes { await apply(locale) }  // ends when the session is released
  }
}
// end

// sample: property wrapper
struct GreetingHandler {
  @Property(GreetingLocale.self) var locale  // the current features' value, at every read

  func greet(_ name: String) -> String {
    locale == "fr" ? "Bonjour \(name)" : "Hello \(name)"
  }
}
// end

/// Collects what `follow` applies.
actor Applied {
  var locales: [String] = []
  func append(_ locale: String) { locales.append(locale) }
}

@Suite struct PropertiesSamplesTests {
  let root: Features = FeaturesRoot { registry in
    registry.set(GreetingLocale.self, to: "en")
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Salutation.loadedOnce())
    }
  }

  @Test func theReadmeTourRuns() async throws {
    #expect(try await propertiesTour() == [.seconds(10), .seconds(5), .seconds(1)])
  }

  @Test func cascadingGivesTheNearestValue() throws {
    #expect(try cascade() == ["en-GB", "de", "fr", "de"])
  }

  @Test func anInstanceKeepsItsValueUnlessItReadsThroughItsFeatures() throws {
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let kept: Salutation = try session.instance()
    let following = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Salutation.current())
      }
    }
    let other = try following.branch(SessionScope.self, context: Session(user: "bob"))
    let current: Salutation = try other.instance()
    other[GreetingLocale.self] = "fr"
    session[GreetingLocale.self] = "fr"
    #expect(kept.hello("ann") == "Hello ann")
    #expect(current.hello("ann") == "Bonjour ann")
  }

  @Test func followingAppliesEveryChangeUntilTheSessionIsReleased() async throws {
    let applied = Applied()
    var session: Features? = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let task = follow(session!, { await applied.append($0) })
    session![GreetingLocale.self] = "fr"
    session![GreetingLocale.self] = "de"
    session = nil
    await task.value  // the loop ended with the session
    #expect(await applied.locales == ["en", "fr", "de"])
  }

  @Test func thePropertyWrapperReadsTheCurrentFeatures() throws {
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let handler = session.withCurrent { GreetingHandler() }
    #expect(handler.greet("ann") == "Hello ann")
    session[GreetingLocale.self] = "fr"
    #expect(handler.greet("ann") == "Bonjour ann")
  }

  @Test func whichSaysWhereTheValueComesFrom() throws {
    let root: Features = FeaturesRoot { registry in
      registry.set(GreetingLocale.self, to: "en-GB", file: "App/Main.swift", line: 12)
      registry.defineScope(SessionScope.self) { registry in
        registry.set(GreetingLocale.self, to: "fr", file: "App/Main.swift", line: 14)
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    root[GreetingLocale.self, file: "App/Settings.swift", line: 40] = "de"
    #expect(
      String(describing: session.which(GreetingLocale.self)) == """
        GreetingLocale is de
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ from: set on Root, an ancestor, at App/Settings.swift:40
        └─ hides: fr, registry.set at App/Main.swift:14 in defineScope(SessionScope.self)
                  en-GB, registry.set at App/Main.swift:12 in FeaturesRoot
                  en, its defaultValue
        """)
    session[GreetingLocale.self, file: "App/Settings.swift", line: 52] = "it"
    #expect(
      session.which(GreetingLocale.self).summary()
        == "GreetingLocale is it, set on this branch at App/Settings.swift:52")
  }
}
