import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Synchronization
import Testing

/// The failures `Sources/Core/Arbor.docc/Diagnostics.md` shows, each a real failure of a small app.
///
/// Every call that can fail is given its site explicitly (`file: "App/Main.swift", line: 42`), as
/// if this were the app's code, so the guide reads like an app's output and does not change when
/// this file does. The blocks are checked against the guide by `DiagnosticsGuideTests`.
enum DocExamples {
  /// One fenced block of the guide: the key of its `<!-- generated: key -->` marker, its language
  /// and its text.
  struct Block: Equatable {
    var key: String
    var language: String
    var text: String
  }

  /// Every block, in the guide's order.
  static func blocks() async throws -> [Block] {
    let loadingFailed = try failure { try loaderFailsWithAnUndefinedDependency() }
    var blocks = [
      Block(key: "FeatureUndefined", language: "text", text: try tree { try undefinedFeature() }),
      Block(key: "FeatureLoadingFailed", language: "text", text: String(reflecting: loadingFailed)),
      Block(key: "FeatureLoadingFailed.own-error", language: "text", text: try tree { try loaderThrowsItsOwnError() }),
      Block(
        key: "FeatureLoadingFailed.deep", language: "text", text: try tree { try failureThreeLoadsAndTwoScopesDeep() }),
      Block(key: "FeatureLoadingFailed.waiter", language: "text", text: try await aLoadFailsWhileAnotherRequestWaits()),
      Block(key: "FeaturesScopeUndefined", language: "text", text: try tree { try branchingAnUndefinedScope() }),
      Block(
        key: "FeaturesScopeContextUnavailable", language: "text",
        text: try tree { try readingAContextOutsideItsScope() }),
      Block(
        key: "FeaturesScopeContextUnavailable.cacheable", language: "text",
        text: try tree { try aCacheableAboveTheScopeReadsItsContext() }),
      Block(
        key: "FeaturesScopeContextUnavailable.branchedHere", language: "text",
        text: try tree { try aCacheableInAScopeBranchedWhereTheContextIsNot() }),
      Block(key: "CircularDependency", language: "text", text: try tree { try aCycle() }),
      Block(
        key: "CircularDependency.async", language: "text",
        text: String(reflecting: try await asyncFailure { try await aCycleThroughAnAsyncLoader() })),
      Block(
        key: "CircularDependency.incomparable", language: "text",
        text: try tree { try recursionWithAContextThatCannotBeCompared() }),
      Block(key: "FeatureRegistrationConflict", language: "text", text: try tree { try aDuplicateRegistration() }),
      Block(key: "FeaturesReleased", language: "text", text: try tree { try featuresUsedAfterRelease() }),
      Block(key: "FeatureUnimplemented", language: "text", text: try tree { try aPlaceholderCalled() }),
      Block(
        key: "FeatureRequiresAwait", language: "text",
        text: try outsideAnyTask { try tree { try anAsyncLoaderRequestedSynchronously() } }),
      Block(
        key: "FeatureRequiresAwait.task", language: "text",
        text: try tree { try anAsyncLoaderRequestedSynchronously() }),
      Block(
        key: "FeatureRequiresMainActor", language: "text",
        text: try outsideAnyTask { try tree { try aMainActorLoaderRequestedOffTheMainActor() } }),
      Block(
        key: "CurrentFeaturesUndefined", language: "text",
        text: try tree { _ = try Features.current(file: "App/Handler.swift", line: 12) }),
      Block(key: "FeaturesValidationFailed", language: "text", text: try await aTreeWithThreeProblems()),
      Block(key: "FeaturesClosed", language: "text", text: try await aRequestAfterClose()),
      Block(key: "FeaturesClosed.below", language: "text", text: try await aBranchBelowAClosedOne()),
      Block(
        key: "TeardownFailed", language: "text",
        text: String(reflecting: try await asyncFailure { try await teardownsThatThrow() })),
      Block(key: "TeardownSkipped", language: "text", text: try aBranchDroppedWithoutClose()),
    ]
    blocks += [
      Block(key: "ascii", language: "text", text: loadingFailed.diagnostic.renderedTree(style: .ascii)),
      Block(key: "summary", language: "text", text: String(describing: loadingFailed)),
      Block(key: "summary.ascii", language: "text", text: loadingFailed.diagnostic.summary(style: .ascii)),
      Block(key: "json", language: "json", text: loadingFailed.diagnostic.json()),
      Block(key: "which", language: "text", text: try String(describing: whichServesCheckout())),
      Block(key: "which.none", language: "text", text: String(describing: whichServesNothing())),
      Block(key: "which.json", language: "json", text: try whichServesCheckout().json()),
      Block(key: "which.property", language: "text", text: try String(describing: whereTheTimeoutComesFrom())),
      Block(key: "which.property.default", language: "text", text: String(describing: theDefaultTimeout())),
      Block(key: "which.property.json", language: "json", text: try whereTheTimeoutComesFrom().json()),
    ]
    return blocks
  }

  // MARK: The app

  static let session = Session(user: "ann")

  static func greeterLive() -> FeatureLoader {
    .cacheable(implementation: "live()", file: "App/Greeter.swift", line: 12) { features in
      let session = try features.context(for: SessionScope.self, file: "App/Greeter.swift", line: 14)
      let printer = try features.instance(of: Printer.self, file: "App/Greeter.swift", line: 17)
      return Greeter(greet: { printer.print("Hello \(session.user)") })
    }
  }

  static func mailerSMTP() -> FeatureLoader {
    .disposable(implementation: "smtp()", file: "App/Mailer.swift", line: 8) { _ -> Mailer in throw Offline() }
  }

  static func checkoutLive() -> FeatureLoader {
    .cacheable(implementation: "live()", file: "App/Checkout.swift", line: 9) { features in
      let pricing = try features.instance(of: Pricing.self, file: "App/Checkout.swift", line: 11)
      return Checkout(total: { try pricing.price("cart") })
    }
  }

  static func pricingLive() -> FeatureLoader {
    .disposable(implementation: "live()", file: "App/Pricing.swift", line: 6) { features in
      let taxes = try features.instance(of: TaxTable.self, file: "App/Pricing.swift", line: 8)
      return Pricing(price: { _ in try taxes.rate() })
    }
  }

  // MARK: The failures

  static func undefinedFeature() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { _ in }
      registry.defineScope(AdminScope.self, file: "App/Main.swift", line: 16) { registry in
        registry.use(mailerSMTP(), file: "App/Main.swift", line: 17)
      }
    }
    let session = try root.branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    _ = try session.instance(of: Mailer.self, file: "App/Main.swift", line: 42)
  }

  static func loaderFailsWithAnUndefinedDependency() throws {
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 0 }), file: "App/Main.swift", line: 11)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.use(greeterLive(), file: "App/Main.swift", line: 14)
      }
    }
    let session = try root.branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    _ = try session.instance(of: Greeter.self, file: "App/Main.swift", line: 42)
  }

  static func loaderThrowsItsOwnError() throws {
    let root = FeaturesRoot { registry in
      registry.use(mailerSMTP(), file: "App/Main.swift", line: 12)
    }
    _ = try root.instance(of: Mailer.self, file: "App/Main.swift", line: 42)
  }

  static func failureThreeLoadsAndTwoScopesDeep() throws {
    let root = FeaturesRoot { registry in
      registry.use(pricingLive(), file: "App/Main.swift", line: 12)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.defineScope(RequestScope.self, file: "App/Main.swift", line: 15) { registry in
          registry.use(checkoutLive(), file: "App/Main.swift", line: 16)
        }
      }
    }
    let session = try root.branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    let request = try session.branch(RequestScope.self, context: Request(id: 7), file: "App/Server.swift", line: 21)
    _ = try request.instance(of: Checkout.self, file: "App/Server.swift", line: 23)
  }

  static func branchingAnUndefinedScope() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.defineScope(RequestScope.self, file: "App/Main.swift", line: 15) { _ in }
      }
    }
    _ = try root.branch(RequestScope.self, context: Request(id: 7), file: "App/Server.swift", line: 21)
  }

  static func readingAContextOutsideItsScope() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { _ in }
    }
    _ = try root.context(for: SessionScope.self, file: "App/Main.swift", line: 30)
  }

  static func aCacheableAboveTheScopeReadsItsContext() throws {
    let root = FeaturesRoot { registry in
      registry.use(greeterLive(), file: "App/Main.swift", line: 12)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    _ = try session.instance(of: Greeter.self, file: "App/Main.swift", line: 42)
  }

  static func aCacheableInAScopeBranchedWhereTheContextIsNot() throws {
    let root = FeaturesRoot { registry in
      registry.use(Printer.console(), file: "App/Main.swift", line: 11)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { _ in }
      registry.defineScope(RequestScope.self, file: "App/Main.swift", line: 15) { registry in
        registry.use(greeterLive(), file: "App/Main.swift", line: 16)
      }
    }
    let request = try root.branch(RequestScope.self, context: Request(id: 7), file: "App/Server.swift", line: 21)
    _ = try request.instance(of: Greeter.self, file: "App/Server.swift", line: 23)
  }

  static func aCycle() throws {
    let root = FeaturesRoot { registry in
      registry.use(checkoutLive(), file: "App/Main.swift", line: 12)
      registry.use(
        .disposable(implementation: "live()", file: "App/Pricing.swift", line: 6) { features in
          _ = try features.instance(of: Checkout.self, file: "App/Pricing.swift", line: 8)
          return Pricing.placeholder
        }, file: "App/Main.swift", line: 13)
    }
    _ = try root.instance(of: Checkout.self, file: "App/Main.swift", line: 42)
  }

  static func aLoadFailsWhileAnotherRequestWaits() async throws -> String {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "remote()", file: "App/TaxTable.swift", line: 4) {
          features async throws -> TaxTable in
          // Fails only once both requests wait: for this load, and for Checkout's.
          #expect(await eventually { features.waits.requestsForLoads == 3 })
          throw Offline()
        }, file: "App/Main.swift", line: 12)
      registry.use(
        .cacheable(implementation: "live()", file: "App/Checkout.swift", line: 9) { features async throws in
          let taxes = try await features.instance(of: TaxTable.self, file: "App/Checkout.swift", line: 11)
          return Checkout(total: { try taxes.rate() })
        }, file: "App/Main.swift", line: 13)
    }
    // The first request starts the load; the second, made while it runs, waits for it. Whichever
    // of the two starts it, each is told its own site and path.
    async let first = asyncFailure { _ = try await root.instance(of: TaxTable.self, file: "App/Main.swift", line: 42) }
    let second = try await asyncFailure {
      _ = try await root.instance(of: Checkout.self, file: "App/Handler.swift", line: 8)
    }
    return String(reflecting: try await first) + "\n\n" + String(reflecting: second)
  }

  static func aCycleThroughAnAsyncLoader() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()", file: "App/Checkout.swift", line: 9) { features async throws in
          let pricing = try await features.instance(of: Pricing.self, file: "App/Checkout.swift", line: 11)
          return Checkout(total: { try pricing.price("cart") })
        }, file: "App/Main.swift", line: 12)
      registry.use(
        .disposable(implementation: "live()", file: "App/Pricing.swift", line: 6) { features in
          _ = try features.instance(of: Checkout.self, file: "App/Pricing.swift", line: 8)
          return Pricing.placeholder
        }, file: "App/Main.swift", line: 13)
    }
    _ = try await root.instance(of: Checkout.self, file: "App/Main.swift", line: 42)
  }

  /// A step of a walk through a document: neither `Equatable` nor `Hashable`.
  struct Cursor: Sendable {
    var remaining: Int
  }

  /// A disposable whose loader requests itself with the next cursor.
  struct Walker: DisposableFeature {
    typealias Context = Cursor
    static var placeholder: Walker { Walker() }
  }

  static func recursionWithAContextThatCannotBeCompared() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable(implementation: "live()", file: "App/Walker.swift", line: 6) { (cursor: Cursor, features) in
          if cursor.remaining > 0 {
            let next = Cursor(remaining: cursor.remaining - 1)
            _ = try features.instance(of: Walker.self, context: next, file: "App/Walker.swift", line: 9)
          }
          return Walker()
        }, file: "App/Main.swift", line: 12)
    }
    _ = try root.instance(of: Walker.self, context: Cursor(remaining: 3), file: "App/Main.swift", line: 42)
  }

  static func aDuplicateRegistration() throws {
    // The conflict is also reported as the root is built: captured here, checked by
    // FeatureRegistrationConflictTests.
    let root = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(
          .disposable(implementation: "console()") { _ in Printer.placeholder }, file: "App/Main.swift", line: 12)
        registry.use(
          .disposable(implementation: "file()") { _ in Printer.placeholder }, file: "App/Main.swift", line: 19)
      }
    }.result
    _ = try root.instance(of: Printer.self, file: "App/Main.swift", line: 42)
  }

  /// A tree validated before it serves: a loader requests a feature nobody registered, a root
  /// cacheable reads a session's context, and no context was given for the request scope.
  static func aTreeWithThreeProblems() async throws -> String {
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 0 }), file: "App/Main.swift", line: 11)
      registry.use(
        .cacheable(implementation: "audit()", file: "App/Audit.swift", line: 8) { features in
          _ = try features.context(for: SessionScope.self, file: "App/Audit.swift", line: 9)
          return Greeter.placeholder
        }, file: "App/Main.swift", line: 12)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.use(
          .cacheable(implementation: "live()", file: "App/Checkout.swift", line: 20) { features in
            let printer = try features.instance(of: Printer.self, file: "App/Checkout.swift", line: 21)
            return Checkout(total: {
              printer.print("total"); return 0
            })
          }, file: "App/Main.swift", line: 15)
        registry.defineScope(RequestScope.self, file: "App/Main.swift", line: 16) { _ in }
      }
    }
    let validation = await root.validate(
      { contexts in contexts.use(session, for: SessionScope.self) }, file: "App/Main.swift", line: 30)
    return String(reflecting: try failure { try validation.check() })
  }

  static func featuresUsedAfterRelease() throws {
    _ = try featuresOfAReleasedBranch().instance(of: Printer.self, file: "App/Greeter.swift", line: 20)
  }

  static func aPlaceholderCalled() throws {
    let greet: @Sendable () throws -> Void = unimplemented("Greeter.greet", file: "App/Greeter.swift", line: 5)
    // The call is also reported: captured here, checked by FeatureUnimplementedTests.
    _ = try IssueReporting.capturingReports { try greet() }
  }

  static func anAsyncLoaderRequestedSynchronously() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "downloaded()", file: "App/TaxTable.swift", line: 4) { _ async throws in
          TaxTable.placeholder
        }, file: "App/Main.swift", line: 14)
    }
    _ = try root.instance(of: TaxTable.self, file: "App/Handler.swift", line: 8)
  }

  static func aMainActorLoaderRequestedOffTheMainActor() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(on: MainActor.self, implementation: "live()", file: "App/SettingsPanel.swift", line: 6) { _ in
          SettingsPanel.placeholder
        }, file: "App/Main.swift", line: 9)
    }
    _ = try root.instance(of: SettingsPanel.self, file: "App/Sync.swift", line: 12)
  }

  static func sessionTree() -> Features {
    FeaturesRoot { registry in
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.use(greeterLive(), file: "App/Main.swift", line: 14)
        registry.defineScope(RequestScope.self, file: "App/Main.swift", line: 15) { _ in }
      }
    }
  }

  static func aRequestAfterClose() async throws -> String {
    let session = try sessionTree().branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    try await session.close(file: "App/Main.swift", line: 51)
    return String(
      reflecting: try await asyncFailure {
        _ = try await session.instance(of: Greeter.self, file: "App/Handler.swift", line: 30)
      })
  }

  static func aBranchBelowAClosedOne() async throws -> String {
    let session = try sessionTree().branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    let request = try session.branch(RequestScope.self, context: Request(id: 7), file: "App/Server.swift", line: 21)
    try await session.close(file: "App/Main.swift", line: 51)
    return String(
      reflecting: try await asyncFailure {
        _ = try await request.instance(of: Greeter.self, file: "App/Server.swift", line: 23)
      })
  }

  static func teardownsThatThrow() async throws {
    let session = try sessionWithFailingTeardowns().branch(
      SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    _ = try await session.instance(of: Database.self, file: "App/Main.swift", line: 42)
    _ = try await session.instance(of: SearchIndex.self, file: "App/Main.swift", line: 43)
    try await session.close(file: "App/Main.swift", line: 51)
  }

  static func aBranchDroppedWithoutClose() throws -> String {
    let root = sessionWithFailingTeardowns()
    let reports = try IssueReporting.capturingReports {
      let session = try root.branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
      _ = try session.instance(of: Database.self, file: "App/Main.swift", line: 42)
    }.reports
    return reports.map { $0.diagnostic.renderedTree() }.joined(separator: "\n\n")
  }

  static func whichServesCheckout() throws -> Features.Which {
    let root = FeaturesRoot { registry in
      registry.use(checkoutLive(), file: "App/Main.swift", line: 12)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    return session.which(Checkout.self, file: "App/Main.swift", line: 44)
  }

  static func whichServesNothing() -> Features.Which {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.use(greeterLive(), file: "App/Main.swift", line: 14)
      }
    }
    return root.which(Greeter.self, file: "App/Main.swift", line: 44)
  }

  // MARK: Helpers

  /// The error `body` throws; it must throw an Arbor error.
  static func failure(_ body: () throws -> Void) throws -> any DiagnosticError {
    do {
      try body()
    } catch let error as any DiagnosticError {
      return error
    }
    throw ExampleDidNotFail()
  }

  /// The error `body` throws; it must throw an Arbor error.
  static func asyncFailure(_ body: () async throws -> Void) async throws -> any DiagnosticError {
    do {
      try await body()
    } catch let error as any DiagnosticError {
      return error
    }
    throw ExampleDidNotFail()
  }

  /// The tree of the error `body` throws.
  static func tree(_ body: () throws -> Void) throws -> String {
    String(reflecting: try failure(body))
  }

  struct ExampleDidNotFail: Error {}
}
