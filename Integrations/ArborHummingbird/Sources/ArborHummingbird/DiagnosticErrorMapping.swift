import Arbor
import Hummingbird
import Logging

/// How an Arbor error becomes a response and a log entry: never a crash, never a diagnostic sent to
/// the client.
///
/// ``FeaturesMiddleware`` catches every ``DiagnosticError`` (a feature that could not be loaded, a
/// scope that was never defined) thrown while it makes the request's branch or while the handler
/// runs. It logs the error at ``level`` with its one-line summary as the message and its whole tree
/// as JSON under the metadata key `arbor.diagnostic` (`DiagnosticLogMetadata.diagnosticKey`), then
/// answers with an `HTTPError` of the
/// status ``status(for:)`` picks: 500 unless the app maps it. Errors that are already HTTP responses
/// (`HTTPResponseError`) pass through untouched.
///
/// ```swift
/// let errors = DiagnosticErrorMapping { error in
///   error is FeatureUnimplemented ? .notImplemented : .internalServerError
/// }
/// router.add(middleware: FeaturesMiddleware(root: root, scope: RequestScope.self, errors: errors) { … })
/// ```
public struct DiagnosticErrorMapping: Sendable {
  /// The level of the log entry; `.error` unless you say otherwise.
  public var level: Logger.Level
  /// Picks the response status of an error.
  private let status: @Sendable (any DiagnosticError) -> HTTPResponse.Status

  /// A mapping that logs at `level` and answers with the status `status` picks.
  ///
  /// - Parameters:
  ///   - level: The level of the log entry.
  ///   - status: The response status of an error; 500 for every error by default.
  public init(
    level: Logger.Level = .error,
    status: @escaping @Sendable (any DiagnosticError) -> HTTPResponse.Status = { _ in .internalServerError }
  ) {
    self.level = level
    self.status = status
  }

  /// The response status of `error`.
  ///
  /// - Parameter error: An Arbor error (or any ``DiagnosticError``).
  /// - Returns: The status this mapping answers with.
  public func status(for error: any DiagnosticError) -> HTTPResponse.Status {
    status(error)
  }

  /// Logs `error` with its diagnostic as metadata and returns the error to answer with.
  ///
  /// - Parameters:
  ///   - error: The error to map.
  ///   - logger: The request's logger.
  /// - Returns: An `HTTPError` with the mapped status and no body: the diagnostic stays in the log.
  @usableFromInline
  func map(_ error: any DiagnosticError, logger: Logger) -> HTTPError {
    let status = status(error)
    logger.log(
      level: level, diagnostic: error.diagnostic, metadata: ["http.response.status_code": .string(String(status.code))])
    return HTTPError(status)
  }
}
