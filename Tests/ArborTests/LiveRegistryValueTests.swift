@_spi(Integrations) import Arbor
import ArborDemoFeatures
import Synchronization
import Testing

/// The hook integrations back properties with (`@_spi(Integrations)`): a registry value that changes
/// while the tree lives, and a value that is never shown.
@Suite struct LiveRegistryValueTests {
  @Test func anUpdateReachesTheReadsAndObserversOfEveryBranchThatReadsTheValue() async throws {
    let live = LiveRegistryValue(GreetingLocale.self, value: "fr")
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.set(GreetingLocale.self, to: live)
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let request = try ann.branch(RequestScope.self, context: 1)
    bob[GreetingLocale.self] = "it"  // bob's own value shadows the registry's
    #expect([root, ann, bob, request].map { $0[GreetingLocale.self] } == ["en", "fr", "it", "fr"])
    let streams = [ann, request, root].map { $0.observe(GreetingLocale.self) }

    live.update(to: "de")

    #expect([root, ann, bob, request].map { $0[GreetingLocale.self] } == ["en", "de", "it", "de"])
    #expect(await firstValues(2, of: streams[0]) == ["fr", "de"])
    #expect(await firstValues(2, of: streams[1]) == ["fr", "de"])
    root[GreetingLocale.self] = "pt"  // a set on the root wins over every registry value
    #expect(await firstValues(2, of: streams[2]) == ["en", "pt"])
    #expect(request[GreetingLocale.self] == "pt")
  }

  @Test func withoutAValueLookupGoesOnToTheRegistriesAboveThenTheDefault() throws {
    let sessionValue = LiveRegistryValue(GreetingLocale.self, value: nil)
    let rootValue = LiveRegistryValue(GreetingLocale.self, value: "fr")
    let root = FeaturesRoot { registry in
      registry.set(GreetingLocale.self, to: rootValue)
      registry.defineScope(SessionScope.self) { registry in
        registry.set(GreetingLocale.self, to: sessionValue)
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(session[GreetingLocale.self] == "fr")
    sessionValue.update(to: "de")
    #expect(session[GreetingLocale.self] == "de")
    sessionValue.update(to: nil)
    rootValue.update(to: nil)
    #expect(session[GreetingLocale.self] == "en")
  }

  @Test func aRedactedValueIsNeverShownByWhich() throws {
    let live = LiveRegistryValue(GreetingLocale.self, value: "s3cret", isRedacted: true)
    let root = FeaturesRoot { registry in
      registry.set(GreetingLocale.self, to: live)
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    session[GreetingLocale.self] = "fr"
    let line = #line - 1
    #expect(root[GreetingLocale.self] == "s3cret")
    #expect(
      session.which(GreetingLocale.self).description == """
        GreetingLocale is fr
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ from: set on this branch at ArborTests/LiveRegistryValueTests.swift:\(line)
        └─ hides: <redacted>, registry.set at ArborTests/LiveRegistryValueTests.swift:\(line - 4) in FeaturesRoot
                  en, its defaultValue
        """)
    let json = root.which(GreetingLocale.self).json(pretty: false)
    #expect(json.contains(#""value":{"value":"<redacted>","kind":"registry""#) && !json.contains("s3cret"))
    live.update(to: "open")  // no longer secret
    #expect(root.which(GreetingLocale.self).value?.value == "open")
  }

  @Test func anUpdateDoesNotKeepAReleasedTreeAlive() async throws {
    let live = LiveRegistryValue(GreetingLocale.self, value: "fr")
    var root: Features? = FeaturesRoot { registry in registry.set(GreetingLocale.self, to: live) }
    let stream = root!.observe(GreetingLocale.self)
    #expect(root![GreetingLocale.self] == "fr")
    root = nil
    #expect(await firstValues(2, of: stream) == ["fr"])  // finished with its tree
    live.update(to: "de")  // tells no one
  }

  @Test func readersOnManyThreadsSeeOnlyValuesThatWereSetAndEndOnTheLast() async throws {
    let live = LiveRegistryValue(RequestTimeout.self, value: .seconds(0))
    let root = FeaturesRoot { registry in
      registry.set(RequestTimeout.self, to: live)
      registry.defineScope(SessionScope.self) { _ in }
    }
    let sessions = try (0..<4).map { try root.branch(SessionScope.self, context: Session(user: "\($0)")) }
    let updates = 2_000
    let backwards = Atomic(0)
    await onDedicatedThreads(5) { index in
      guard index < 4 else {
        for seconds in 1...updates { live.update(to: .seconds(seconds)) }
        return
      }
      var last = Duration.zero
      while last < .seconds(updates) {
        let value = sessions[index][RequestTimeout.self]
        if value < last { backwards.add(1, ordering: .relaxed) }
        last = value
      }
    }
    #expect(backwards.load(ordering: .relaxed) == 0)
    #expect(sessions.map { $0[RequestTimeout.self] } == Array(repeating: .seconds(updates), count: 4))
  }
}
