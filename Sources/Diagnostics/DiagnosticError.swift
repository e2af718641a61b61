/// An error that carries a ``Diagnostic``: every error Arbor throws is one.
///
/// `String(describing: error)` is the one-line summary and `String(reflecting: error)` the whole tree.
/// When such an error is thrown inside a loader, Arbor nests its tree as the cause of the loading
/// failure instead of flattening it to a description. Conform your own errors to nest them too.
///
/// ```swift
/// struct Offline: DiagnosticError {
///   var diagnostic: Diagnostic { Diagnostic(kind: "Offline", message: "the network is down") }
/// }
/// ```
public protocol DiagnosticError: Error, CustomStringConvertible, CustomDebugStringConvertible {
  /// The diagnostic tree of this error.
  var diagnostic: Diagnostic { get }
}

extension DiagnosticError {
  /// The one-line summary of ``diagnostic``.
  public var description: String { diagnostic.summary() }
  /// The whole tree of ``diagnostic``.
  public var debugDescription: String { diagnostic.renderedTree() }
}

extension Diagnostic {
  /// The diagnostic of any error: its own tree if it is a ``DiagnosticError``, otherwise a node whose
  /// kind is the error's type and whose message is its description.
  ///
  /// A description that already starts with the type's name (`HTTPError: Not Found`,
  /// `Abort.404: Not Found`) gives its message without it, so the node renders the name once:
  /// `HTTPError: Not Found`, `Abort: 404: Not Found`.
  ///
  /// ```swift
  /// let node = Diagnostic(describing: URLError(.notConnectedToInternet))
  /// ```
  ///
  /// - Parameter error: Any error.
  public init(describing error: any Error) {
    if let error = error as? any DiagnosticError {
      self = error.diagnostic
    } else {
      let kind = String(describing: type(of: error))
      let description = String(describing: error)
      let message =
        if description.hasPrefix("\(kind): ") {
          String(description.dropFirst(kind.count + 2))
        } else if description.hasPrefix("\(kind).") {
          // `Abort.404: Not Found`, as Vapor's errors describe themselves.
          String(description.dropFirst(kind.count + 1))
        } else {
          description
        }
      self.init(kind: kind, message: message)
    }
  }
}
