import Arbor
import Synchronization
import Testing

// The samples of the catalog's articles on features and scopes (Sources/Core/Arbor.docc:
// FeaturesAndLifetimes.md, ScopesAndBranches.md, GettingStarted.md), compiled and run.

/// A disposable with a context: each request says which log it writes to.
struct TaggedPrinter: DisposableFeature {
  typealias Context = String

  var print: @Sendable (String) -> Void
  static var placeholder: TaggedPrinter { TaggedPrinter(print: unimplemented("TaggedPrinter.print")) }
}

/// A cacheable with a context: one instance per account id, in each branch that registers it.
struct Account: CacheableFeature {
  typealias Context = Int

  var balance: @Sendable () -> Int
  static var placeholder: Account { Account(balance: unimplemented("Account.balance", placeholder: 0)) }
}

extension TaggedPrinter {
  static func console() -> FeatureLoader {
    .disposable { (tag: String, features: Features) in
      TaggedPrinter(print: { line in Swift.print("[\(tag)] \(line)") })
    }
  }
}

extension Account {
  static func live() -> FeatureLoader {
    .cacheable { (id: Int, features: Features) in
      Account(balance: { id * 100 })
    }
  }
}

func requestsWithContexts(_ features: Features) throws {
  let billing: TaggedPrinter = try features.instance(context: "billing")
  let account: Account = try features.instance(context: 7)  // the same instance for 7, every time
  billing.print("balance: \(account.balance())")
}

/// Any cacheable that takes no context: its `Context` is `NoContext`.
func cachedInstance<F: CacheableFeature>(of feature: F.Type, in features: Features) throws -> F
where F.Context == NoContext {
  try features.instance(of: feature)
}

/// Any disposable (or static feature) that takes no context: its `Context` is `Void`.
func newInstance<F: DisposableFeature>(of feature: F.Type, in features: Features) throws -> F
where F.Context == Void {
  try features.instance(of: feature)
}

/// Any feature, with the context its requests pass.
func instance<F: Feature>(of feature: F.Type, context: F.Context, in features: Features) throws -> F {
  try features.instance(of: feature, context: context)
}

struct ConsoleGreeter: FeatureImplementation {
  let printer: Printer
  let session: Session

  init(context: NoContext, features: Features) throws {
    printer = try features.instance()
    session = try features.context(for: SessionScope.self)
  }

  var instance: Greeter {
    Greeter(greet: { [printer, session] in printer.print("Hello \(session.user)") })
  }
}

struct Banner: FeatureImplementation {
  let tag: String
  let printer: Printer

  init(context: String, features: Features) throws {
    tag = context
    printer = try features.instance()
  }

  var instance: TaggedPrinter {
    TaggedPrinter(print: { [tag, printer] line in printer.print("*** \(tag): \(line) ***") })
  }
}

func registeringImplementationTypes() -> Features {
  FeaturesRoot { registry in
    registry.use(Printer.console())
    registry.use(Banner.self)
    registry.defineScope(SessionScope.self) { registry in
      registry.use(ConsoleGreeter.self)
    }
  }
}

func awaitingARequest(in session: Features) async throws {
  let greeter: Greeter = try await session.instance()
  try greeter.greet()
}

@Suite struct FeaturesGuideSamplesTests {
  @Test func contextsReachTheirLoaders() throws {
    _ = TaggedPrinter.console()
    let printed = Mutex<[String]>([])
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (tag: String, features: Features) in
          TaggedPrinter(print: { line in printed.withLock { $0.append("[\(tag)] \(line)") } })
        })
      registry.use(Account.live())
    }
    try requestsWithContexts(root)
    #expect(printed.withLock { $0 } == ["[billing] balance: 700"])
    let account: Account = try instance(of: Account.self, context: 3, in: root)
    #expect(account.balance() == 300)
  }

  @Test func genericHelpersNameNoContextForCacheablesAndVoidForTheOthers() throws {
    let root = FeaturesRoot { registry in
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in registry.use(Greeter.live()) }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try cachedInstance(of: Greeter.self, in: session)
    _ = try newInstance(of: Printer.self, in: session)
  }

  @Test func implementationTypesLoadAsTheirFeaturesLifetime() async throws {
    _ = try await registeringImplementationTypes().branch(SessionScope.self, context: Session(user: "bob"))
      .instance(of: Greeter.self)
    let printed = Mutex<[String]>([])
    let root = FeaturesRoot { registry in
      registry.use(.disposable { features in Printer(print: { line in printed.withLock { $0.append(line) } }) })
      registry.use(Banner.self)
      registry.defineScope(SessionScope.self) { registry in registry.use(ConsoleGreeter.self) }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try await awaitingARequest(in: session)
    let banner: TaggedPrinter = try await session.instance(context: "news")
    banner.print("hi")
    #expect(printed.withLock { $0 } == ["Hello ann", "*** news: hi ***"])
  }
}
