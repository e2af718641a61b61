import Arbor
import ArborServiceLifecycle
import Hummingbird
import Logging

/// How an Arbor error becomes a response and a log entry: never a crash, never a diagnostic sent to
/// the client.
///
/// ``FeaturesMiddleware`` catches every `DiagnosticError` (a feature that could not be loaded, a
/// scope that was never defined) thrown while it makes the request's branch, while the handler runs
/// or while the branch closes:
///
/// - When a loader threw an `HTTPResponseError` on purpose (`HTTPError(.notFound)`), it arrives
///   wrapped in Arbor's `FeatureLoadingFailed`: the mapping looks through the wrapping to it and
///   answers with it, its status and its message, as Hummingbird would have. A client error (4xx)
///   is logged at `clientErrorLevel` (`.info`), a server error at `level`.
/// - Any other Arbor error becomes an `HTTPError` of the status ``status(for:)`` picks (500 unless
///   the app maps it) with no body, logged at `level` (`.error`).
///
/// The log entry's message is the diagnostic's one-line summary (ending with the loader's error,
/// when it threw one), with its whole tree as JSON under `arbor.diagnostic` and the status under
/// `http.response.status_code`. Errors that are already HTTP responses (`HTTPResponseError`) when
/// they reach the middleware are not Arbor's: they pass through untouched.
///
/// ```swift
/// let errors = DiagnosticErrorMapping { error in
///   error is FeatureUnimplemented ? .notImplemented : .internalServerError
/// }
/// router.add(middleware: FeaturesMiddleware(root: root, scope: RequestScope.self, errors: errors) { … })
/// ```
public struct DiagnosticErrorMapping: Sendable {
  /// The levels the errors are logged at.
  public var logging: DiagnosticErrorLog
  /// Picks the response status of an Arbor error that has no `HTTPResponseError` cause.
  private let status: @Sendable (any DiagnosticError) -> HTTPResponse.Status

  /// A mapping that logs server errors at `level`, client errors at `clientErrorLevel`, and answers
  /// an Arbor error with the status `status` picks.
  ///
  /// - Parameters:
  ///   - level: The level of the log entry of a server error (5xx).
  ///   - clientErrorLevel: The level of the log entry of a client error (4xx) a loader threw.
  ///   - status: The response status of an Arbor error without an `HTTPResponseError` cause; 500 by
  ///     default.
  public init(
    level: Logger.Level = .error, clientErrorLevel: Logger.Level = .info,
    status: @escaping @Sendable (any DiagnosticError) -> HTTPResponse.Status = { _ in .internalServerError }
  ) {
    self.logging = DiagnosticErrorLog(level: level, clientErrorLevel: clientErrorLevel)
    self.status = status
  }

  /// The response status of `error`: its `HTTPResponseError` cause's, or the one the app maps it to.
  ///
  /// - Parameter error: An Arbor error (or any `DiagnosticError`).
  /// - Returns: The status this mapping answers with.
  public func status(for error: any DiagnosticError) -> HTTPResponse.Status {
    (DiagnosticErrorLog.cause(of: error) as? any HTTPResponseError)?.status ?? status(error)
  }

  /// Logs `error` with its diagnostic as metadata and returns the error to answer with.
  ///
  /// - Parameters:
  ///   - error: The error to map.
  ///   - logger: The request's logger.
  /// - Returns: The loader's `HTTPResponseError`, or an `HTTPError` with the mapped status and no
  ///   body: the diagnostic stays in the log.
  @usableFromInline
  func map(_ error: any DiagnosticError, logger: Logger) -> any HTTPResponseError {
    let cause = DiagnosticErrorLog.cause(of: error) as? any HTTPResponseError
    let response = cause ?? HTTPError(status(error))
    logging.log(error, statusCode: response.status.code, to: logger)
    return response
  }
}
