import Arbor
import ArborDemoFeatures
import Synchronization
import Testing

@Suite struct ValidationUsesStaticFeaturesTests {
  @Test func aLoaderAndItsTeardownGetTheRegisteredValueOfAStaticFeature() async throws {
    let logged = Lock<[String]>.make([])
    let root = FeaturesRoot { registry in
      registry.use(ServerLog(log: { line in logged.withLock { $0.append(line) } }))
      registry.use(
        .cacheable(
          { features in
            let log = try features.instance(of: ServerLog.self)
            log.log("connecting")
            return Channel(log: log)
          },
          teardown: { connection in connection.log.log("closing") }))
    }
    let validation = await root.validate()
    #expect(validation.problems.isEmpty)
    // Not "checked with the placeholder behaviour of ServerLog.log", for the loader or its teardown.
    #expect(validation.notes.map(\.description) == [])
    #expect(logged.withLock { $0 } == ["connecting", "closing"])
  }

  @Test func aLoaderInANestedScopeGetsTheValueTheRootRegisters() async throws {
    let logged = Lock<[String]>.make([])
    let root = FeaturesRoot { registry in
      registry.use(ServerLog(log: { line in logged.withLock { $0.append("root: " + line) } }))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            try features.instance(of: ServerLog.self).log("greeting")
            return Channel(log: .placeholder)
          })
      }
    }
    let validation = await root.validate { $0.use(Session(user: "check"), for: SessionScope.self) }
    #expect(validation.problems.isEmpty)
    #expect(validation.notes.isEmpty)
    #expect(logged.withLock { $0 } == ["root: greeting"])
  }
}

/// A logger, one value for the whole tree.
private struct ServerLog: StaticFeature {
  var log: @Sendable (String) -> Void
  static var placeholder: ServerLog { ServerLog(log: unimplemented("ServerLog.log")) }
}

private struct Channel: CacheableFeature {
  let log: ServerLog
  static var placeholder: Channel { Channel(log: .placeholder) }
}
