import Arbor

/// Where the app writes: a new instance for every request.
struct Printer: DisposableFeature {
  var print: @Sendable (String) -> Void

  static var placeholder: Printer {
    Printer(print: unimplemented("Printer.print"))
  }
}
