import Arbor

/// Where the app writes: a new instance for every request.
struct Printer: DisposableFeature {
  var print: @Sendable (String) -> Void

  static var placeholder: Printer {
    Printer(print: unimplemented("Printer.print"))
  }
}

extension Printer {
  /// Prints each line to standard output.
  static func console() -> FeatureLoader {
    .disposable { features in
      Printer(print: { line in Swift.print(line) })
    }
  }
}
