import Arbor
import ArborDemoFeatures
import Testing

/// Validation accepts a tree whose cacheables have a time-to-live, checks their loaders as it
/// checks any other, and its graph shows each time-to-live.
@Suite struct TimeToLiveValidationTests {
  struct Rates: CacheableFeature {
    typealias Context = String
    var currency: String
    static var placeholder: Rates { Rates(currency: "") }
  }

  static func tree(clock: ManualClock = ManualClock()) -> Features {
    FeaturesRoot(clock: clock) { registry in
      registry.use(
        .cacheable(implementation: "live()", timeToLive: .seconds(3600)) { _ in ExpiringToken(value: 1) },
        file: "App/Main.swift", line: 10)
      registry.use(
        .cacheable(implementation: "fetched()", timeToLive: .milliseconds(1500)) { (currency: String, _) async in
          Rates(currency: currency)
        }, file: "App/Main.swift", line: 11)
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()", timeToLive: .seconds(90)) { features in
            TokenClient(token: try features.instance(of: ExpiringToken.self, file: "App/Main.swift", line: 14).value)
          }, file: "App/Main.swift", line: 13)
      }
    }
  }

  @Test func aTreeWithTimeToLiveLoadersValidatesCleanly() async throws {
    let validation = await Self.tree().validate { $0.use(Session(user: "check"), for: SessionScope.self) }
    #expect(validation.problems.isEmpty)
    // As for any cacheable with a context: validation cannot invent one.
    #expect(
      validation.notes.map { "\($0)" } == [
        "Rates.fetched() (App/Main.swift:11): not run: its context is a value of type String, which validation cannot invent"
      ])
    try validation.check()
  }

  @Test func aTreeValidatesCleanlyAfterItsInstancesWereRenewedAndExpired() async throws {
    let clock = ManualClock()
    let root = Self.tree(clock: clock)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: TokenClient.self)
    _ = try await root.refresh(ExpiringToken.self)
    clock.advance(by: .seconds(7200))
    _ = try await session.instance(of: TokenClient.self)
    try await root.validate { $0.use(Session(user: "check"), for: SessionScope.self) }.check()
    try await root.close()
  }

  @Test func aTimeToLiveLoaderIsCheckedAsAnyOther() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()", timeToLive: .seconds(60)) { features in
          _ = try features.instance(of: Mailer.self, file: "App/Main.swift", line: 21)
          return ExpiringToken(value: 1)
        }, file: "App/Main.swift", line: 20)
    }
    let validation = await root.validate()
    #expect(validation.problems.map(\.diagnostic.message) == ["no implementation of Mailer"])
  }

  @Test func theGraphShowsEachTimeToLive() async throws {
    let graph = await Self.tree().validate { $0.use(Session(user: "check"), for: SessionScope.self) }.graph
    #expect(graph.nodes.map(\.timeToLive) == [.seconds(3600), .milliseconds(1500), .seconds(90)])
    #expect(
      graph.mermaid() == """
        flowchart LR
          subgraph s0["Root"]
            n0(["ExpiringToken<br/>cacheable, time-to-live 1 h · ExpiringToken.live()"])
            n1[["Rates<br/>cacheable per context, async, time-to-live 1.5 s · Rates.fetched()"]]
            subgraph s1["Root › SessionScope"]
              n2(["TokenClient<br/>cacheable, time-to-live 1 min 30 s · TokenClient.live()"])
            end
          end
          n2 -->|"App/Main.swift:14"| n0
        """)
    #expect(
      graph.dot().contains(
        #"n0 [label="ExpiringToken\ncacheable, time-to-live 1 h · ExpiringToken.live()", shape=ellipse];"#))
    #expect(
      graph.json(pretty: false).contains(
        #""location":"App/Main.swift:10","scope":"s0","timeToLiveMilliseconds":3600000}"#))
    #expect(graph.json(pretty: false).contains(#""scope":"s1","timeToLiveMilliseconds":90000}"#))
  }
}
