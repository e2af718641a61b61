import ArborDemoFeatures
import ArborDiagnostics
import ArborTesting

/// A multiton: one instance per account id.
struct Account: CacheableFeature {
  typealias Context = Int
  var id: Int
  var balance: @Sendable () -> Int
  static var placeholder: Account { Account(id: -1, balance: unimplemented("Account.balance", placeholder: 0)) }
}

extension Account {
  static func live() -> FeatureLoader {
    .cacheable { (id: Int, features) in
      let clock: Clock = try features.instance()
      return Account(id: id, balance: { id * 100 + Int(clock.now()) })
    }
  }
}

/// A disposable with a context: a printer that tags its lines.
struct TaggedPrinter: DisposableFeature {
  typealias Context = String
  var print: @Sendable (String) -> Void
  static var placeholder: TaggedPrinter { TaggedPrinter(print: unimplemented("TaggedPrinter.print")) }
}

extension TaggedPrinter {
  static func live() -> FeatureLoader {
    .disposable { (tag: String, features) in
      let printer: Printer = try features.instance()
      return TaggedPrinter(print: { printer.print("[\(tag)] \($0)") })
    }
  }
}

extension Greeter {
  /// Greeter.live() with an `async` loader.
  static func awaiting() -> FeatureLoader {
    .cacheable { features async throws in
      let session = try features.context(for: SessionScope.self)
      let printer: Printer = try await features.instance()
      return Greeter(greet: { printer.print("Hello \(session.user)") })
    }
  }
}

/// Greeter.live() as an implementation type.
struct LiveGreeter: FeatureImplementation {
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

/// A disposable without a context, for implementation types of disposables.
struct Shout: DisposableFeature {
  var shout: @Sendable (String) -> Void
  static var placeholder: Shout { Shout(shout: unimplemented("Shout.shout")) }
}

/// Shout's implementation type: prints upper-cased.
struct PrintingShout: FeatureImplementation {
  let printer: Printer

  init(context: Void, features: Features) throws {
    printer = try features.instance()
  }

  var instance: Shout {
    Shout(shout: { [printer] in printer.print($0.uppercased()) })
  }
}

/// TaggedPrinter's implementation type: tags and upper-cases.
struct ShoutingTaggedPrinter: FeatureImplementation {
  let printer: Printer
  let tag: String

  init(context: String, features: Features) throws {
    printer = try features.instance()
    tag = context
  }

  var instance: TaggedPrinter {
    TaggedPrinter(print: { [printer, tag] in printer.print("[\(tag)] \($0.uppercased())") })
  }
}

/// Lines something received: what a patched printer printed, the issues a test recorded.
///
/// Each test makes its own, so nothing is shared between tests.
final class Lines: Sendable {
  private let lines = Lock<[String]>.make([])

  var all: [String] { lines.withLock { $0 } }

  func append(_ line: String) {
    lines.withLock { $0.append(line) }
  }

  /// A `Printer.print` that records its lines here.
  var print: @Sendable (String) -> Void {
    { [self] line in append(line) }
  }
}
