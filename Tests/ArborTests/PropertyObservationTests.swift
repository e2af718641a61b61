import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// `observe(_:)`: the current value, then every change the branch sees, in order, until the
/// branch is released; the stream never keeps the branch alive.
@Suite struct PropertyObservationTests {
  /// A scope whose branches carry an object that counts itself: it is freed with its branch.
  enum TrackedScope: FeaturesScope { typealias Context = LiveObjects.Object }

  static func root() -> Features {
    FeaturesRoot { registry in
      registry.set(RequestTimeout.self, to: .seconds(10))
      registry.defineScope(SessionScope.self) { registry in
        registry.set(RequestTimeout.self, to: .seconds(5))
        registry.defineScope(RequestScope.self) { _ in }
      }
      registry.defineScope(TrackedScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
  }

  @Test func yieldsTheCurrentValueThenEveryChangeInOrder() async throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let values = session.observe(RequestTimeout.self)
    for seconds in 1...5 { session[RequestTimeout.self] = .seconds(seconds) }
    #expect(
      await firstValues(6, of: values) == [
        .seconds(5), .seconds(1), .seconds(2), .seconds(3), .seconds(4), .seconds(5),
      ])
  }

  @Test func seesTheSetsOfItsAncestorsThatItDoesNotShadowAndNothingElse() async throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let sibling = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let request = try session.branch(RequestScope.self, context: 1)
    let values = request.observe(RequestTimeout.self)
    root[RequestTimeout.self] = .seconds(3)  // seen: nothing below sets it
    sibling[RequestTimeout.self] = .seconds(100)  // a sibling's: never seen
    session[RequestTimeout.self] = .seconds(4)  // seen
    request[RequestTimeout.self] = .seconds(6)  // its own
    session[RequestTimeout.self] = .seconds(7)  // shadowed by its own now
    root[RequestTimeout.self] = .seconds(9)  // shadowed
    try root.branch(SessionScope.self, context: Session(user: "cid"))[RequestTimeout.self] = .seconds(100)
    request[RequestTimeout.self] = .seconds(11)
    #expect(await firstValues(5, of: values) == [.seconds(5), .seconds(3), .seconds(4), .seconds(6), .seconds(11)])
  }

  @Test func setsThatChangeNothingYieldNothing() async throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let values = session.observe(GreetingLocale.self)
    session[GreetingLocale.self] = "fr"
    session[GreetingLocale.self] = "fr"  // equal to the value set here: changes nothing
    root[GreetingLocale.self] = "de"  // shadowed
    session[GreetingLocale.self] = "it"
    #expect(await firstValues(3, of: values) == ["en", "fr", "it"])
  }

  @Test func anAncestorSettingTheValueTheBranchAlreadySeesYieldsNothing() async throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 1)
    let values = session.observe(GreetingLocale.self)
    let below = request.observe(GreetingLocale.self)
    root[GreetingLocale.self] = "en"  // the default's value, now set on the root: still "en" here
    session[GreetingLocale.self] = "en"  // the session's own set, of the value it already sees
    root[GreetingLocale.self] = "fr"  // shadowed by the session's own
    session[GreetingLocale.self] = "de"
    // Each stream's next value after the first is "de": an "en" yielded again would come before it.
    #expect(await firstValues(2, of: values) == ["en", "de"])
    #expect(await firstValues(2, of: below) == ["en", "de"])
  }

  @Test func aBranchSettingTheValueItInheritsYieldsNothing() async throws {
    let root = Self.root()
    root[RequestTimeout.self] = .seconds(7)
    let session = try root.branch(TrackedScope.self, context: LiveObjects.Object(LiveObjects()))
    let values = session.observe(RequestTimeout.self)
    session[RequestTimeout.self] = .seconds(7)  // its own now, equal to the root's it saw
    root[RequestTimeout.self] = .seconds(8)  // shadowed
    session[RequestTimeout.self] = .seconds(9)
    #expect(await firstValues(2, of: values) == [.seconds(7), .seconds(9)])
  }

  @Test func aValueThatIsNotEquatableIsYieldedForEverySetThatDecidesIt() async throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let values = session.observe(Retry.self)
    root[Retry.self] = Retry.Policy(attempts: 1)  // equal to the default, but it cannot be compared
    session[Retry.self] = Retry.Policy(attempts: 1)
    root[Retry.self] = Retry.Policy(attempts: 5)  // shadowed: nothing
    session[Retry.self] = Retry.Policy(attempts: 2)
    #expect(await firstValues(4, of: values).map(\.attempts) == [1, 1, 1, 2])
  }

  @Test func aValueThatIsNotEquatableIsYieldedForEverySet() async throws {
    let root = Self.root()
    let values = root.observe(Retry.self)
    root[Retry.self] = Retry.Policy(attempts: 2)
    root[Retry.self] = Retry.Policy(attempts: 2)
    #expect(await firstValues(3, of: values).map(\.attempts) == [1, 2, 2])
  }

  @Test func severalObserversOfOneBranchEachGetEveryChange() async throws {
    let root = Self.root()
    let first = root.observe(GreetingLocale.self)
    let second = root.observe(GreetingLocale.self)
    root[GreetingLocale.self] = "fr"
    let third = root.observe(GreetingLocale.self)  // starts at the value now
    root[GreetingLocale.self] = "de"
    #expect(await firstValues(3, of: first) == ["en", "fr", "de"])
    #expect(await firstValues(3, of: second) == ["en", "fr", "de"])
    #expect(await firstValues(2, of: third) == ["fr", "de"])
  }

  @Test func finishesWhenTheBranchIsReleased() async throws {
    let live = LiveObjects()
    let root = Self.root()
    var values: AsyncStream<Duration>
    do {
      let tracked = try root.branch(TrackedScope.self, context: LiveObjects.Object(live))
      values = tracked.observe(RequestTimeout.self)
      tracked[RequestTimeout.self] = .seconds(1)
      #expect(live.value == 1)
    }
    #expect(live.value == 0)  // released, though its stream is still here
    var seen: [Duration] = []
    for await value in values { seen.append(value) }  // ends
    #expect(seen == [.seconds(10), .seconds(1)])
  }

  @Test func anObserverWaitingForValuesNeverKeepsItsBranchAlive() async throws {
    let live = LiveObjects()
    let root = Self.root()
    let seen = Collected<Duration>()
    let consumer: Task<Void, Never>
    do {
      let tracked = try root.branch(TrackedScope.self, context: LiveObjects.Object(live))
      let values = tracked.observe(RequestTimeout.self)
      consumer = Task {
        for await value in values { seen.append(value) }
      }
      root[RequestTimeout.self] = .seconds(2)
      #expect(await eventually { seen.all == [.seconds(10), .seconds(2)] })
      #expect(live.value == 1)
    }
    #expect(live.value == 0)  // released while the consumer waits for the next value
    await consumer.value  // whose loop ended with the branch
    root[RequestTimeout.self] = .seconds(3)
    #expect(seen.all == [.seconds(10), .seconds(2)])
  }

  @Test func aBranchBelowObservesItsAncestorsWhileTheyLive() async throws {
    let live = LiveObjects()
    let root = Self.root()
    let values: AsyncStream<String>
    do {
      let tracked = try root.branch(TrackedScope.self, context: LiveObjects.Object(live))
      let request = try tracked.branch(RequestScope.self, context: 1)
      values = request.observe(GreetingLocale.self)
      tracked[GreetingLocale.self] = "fr"
    }
    // The request kept the tracked branch (its parent) alive until both were dropped.
    #expect(live.value == 0)
    var seen: [String] = []
    for await value in values { seen.append(value) }
    #expect(seen == ["en", "fr"])
  }

  @Test func streamsThatAreDroppedStopBeingFed() async throws {
    let root = Self.root()
    for _ in 0..<100 {
      var iterator = root.observe(GreetingLocale.self).makeAsyncIterator()
      #expect(await iterator.next() == root[GreetingLocale.self])
    }
    root[GreetingLocale.self] = "fr"  // no stream is left to feed
    let values = root.observe(GreetingLocale.self)
    root[GreetingLocale.self] = "de"
    #expect(await firstValues(2, of: values) == ["fr", "de"])
  }
}
