import Arbor
import Testing

@Suite struct FailuresAreNotCachedTests {
  @Test func aThrowingLoaderFailsWithItsCauseAndTheNextRequestTriesAgain() throws {
    let attempts = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          if attempts.next() == 1 { throw Boom() }
          return Counter(name: "recovered", serial: attempts.value)
        })
    }
    let error = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Counter.self) }
    #expect(error?.cause is Boom)
    #expect(error?.feature == Counter.self)
    let counter: Counter = try root.instance()
    #expect(counter.name == "recovered")
    #expect(try root.instance(of: Counter.self).serial == counter.serial)
    #expect(attempts.value == 2)
  }

  @Test func aFailingMultitonContextDoesNotPoisonOthers() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, _) in
          if id < 0 { throw Boom() }
          return Account(id: id, serial: id)
        })
    }
    #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Account.self, context: -1) }
    #expect(try root.instance(of: Account.self, context: 3).id == 3)
  }
}
