import Arbor

/// Prints lines: a new instance for every request.
///
/// ```swift
/// let printer: Printer = try features.instance()
/// printer.print("Hello")
/// ```
public struct Printer: DisposableFeature {
  /// Prints one line.
  public var print: @Sendable (String) -> Void

  /// A printer that prints with `print`.
  ///
  /// - Parameter print: Prints one line.
  public init(print: @escaping @Sendable (String) -> Void) {
    self.print = print
  }

  /// Reports a call to `print`.
  public static var placeholder: Printer { Printer(print: unimplemented("Printer.print")) }
}

extension Printer {
  /// Prints to standard output, each line after the clock's time: `  [t=42.0] Hello ann`.
  ///
  /// - Returns: A loader that resolves the ``Clock`` for every printer it makes.
  public static func console() -> FeatureLoader {
    .disposable { features in
      let clock: Clock = try features.instance()
      return Printer(print: { line in Swift.print("  [t=\(clock.now())] \(line)") })
    }
  }
}
