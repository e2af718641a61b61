// The code samples of Sources/Core/Arbor.docc/Validation.md that need no test support, compiled and
// run by the test suite (DocsSamplesTests checks that the article shows this code).
import Arbor
import Synchronization
import Testing

// sample: a request scope branched from sessions
/// What a request logs under: its session's user and its number.
struct RequestLabel: CacheableFeature {
  var text: String
  static var placeholder: RequestLabel { RequestLabel(text: "") }
}

func serverRoot() -> Features {
  FeaturesRoot { registry in
    registry.defineScope(SessionScope.self) { _ in }
    // Defined beside SessionScope: the server branches it from session branches.
    registry.defineScope(RequestScope.self) { registry in
      registry.use(
        .cacheable { features in
          let session = try features.context(for: SessionScope.self)
          let request = try features.context(for: RequestScope.self)
          return RequestLabel(text: "\(session.user), request \(request)")
        })
    }
  }
}
// end

@Test func aRequestScopeIsValidatedWhereTheServerBranchesIt() async throws {
  let root = serverRoot()
  // sample: declaring where a scope is branched
  let validation = await root.validate { contexts in
    contexts.use(Session(user: "check"), for: SessionScope.self)
    contexts.use(0, for: RequestScope.self)
    contexts.branch(RequestScope.self, from: SessionScope.self)
  }
  try validation.check()
  // end
  #expect(validation.notes.isEmpty)
  // Without the declaration, validation infers the place from the context the loader reads.
  let inferred = await root.validate { contexts in
    contexts.use(Session(user: "check"), for: SessionScope.self)
    contexts.use(0, for: RequestScope.self)
  }
  #expect(inferred.problems.isEmpty)
  #expect(inferred.notes.count == 1)
}

// sample: a loader that does not connect while validating
struct OrdersSettings: StaticFeature {
  var url: String
  static var placeholder: OrdersSettings { OrdersSettings(url: "") }
}

struct Orders: CacheableFeature {
  var connection: OrdersConnection?
  static var placeholder: Orders { Orders(connection: nil) }
}

extension Orders {
  static func connected() -> FeatureLoader {
    .cacheable { features async throws in
      let settings = try await features.instance(of: OrdersSettings.self)
      // Validation checks the settings and the requests, without a connection to close.
      if features.isValidating { return Orders(connection: nil) }
      return Orders(connection: try await OrdersConnection.open(settings.url))
    } teardown: { orders in
      await orders.connection?.close()
    }
  }
}
// end

/// A connection that counts how many are open.
final class OrdersConnection: Sendable {
  static let opened = Atomic<Int>(0)
  let url: String

  private init(url: String) {
    self.url = url
  }

  static func open(_ url: String) async throws -> OrdersConnection {
    opened.add(1, ordering: .relaxed)
    return OrdersConnection(url: url)
  }

  func close() async {}
}

@Test func validationChecksTheOrdersLoaderWithoutConnecting() async throws {
  let root = FeaturesRoot { registry in
    registry.use(OrdersSettings(url: "postgres://orders"))
    registry.use(Orders.connected())
  }
  let before = OrdersConnection.opened.load(ordering: .relaxed)
  try await root.validate().check()
  #expect(OrdersConnection.opened.load(ordering: .relaxed) == before)
  // Outside validation, the loader connects.
  #expect(!root.isValidating)
  let orders = try await root.instance(of: Orders.self)
  #expect(orders.connection?.url == "postgres://orders")
  #expect(OrdersConnection.opened.load(ordering: .relaxed) == before + 1)
  try await root.close()
}
