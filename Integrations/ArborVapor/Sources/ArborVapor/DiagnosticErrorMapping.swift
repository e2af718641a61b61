import Arbor
import ArborServiceLifecycle
import Logging
import Vapor

/// How an Arbor error becomes a response and a log entry: never a crash, never a diagnostic sent to
/// the client.
///
/// ``FeaturesMiddleware`` catches every `DiagnosticError` (a feature that could not be loaded, a
/// scope that was never defined) thrown while it makes the request's branch, while the handler runs
/// or while the branch closes, and answers it itself, so Vapor's `ErrorMiddleware` does not log it
/// a second time:
///
/// - When a loader threw an `AbortError` on purpose (`Abort(.notFound)`), it arrives wrapped in
///   Arbor's `FeatureLoadingFailed`: the mapping looks through the wrapping to it and answers with
///   its status, reason and headers, as Vapor would have. A client error (4xx) is logged at
///   `clientErrorLevel` (`.info`), a server error at `level`.
/// - Any other Arbor error is answered with the status ``status(for:)`` picks (500 unless the app
///   maps it) and its reason phrase, and logged at `level` (`.error`).
///
/// The body is Vapor's error JSON, `{"error":true,"reason":"Not Found"}`. The log entry's message
/// is the diagnostic's one-line summary (ending with the loader's error, when it threw one), with
/// its whole tree as JSON under `arbor.diagnostic` and the status under `http.response.status_code`. An `AbortError` a handler throws itself is not Arbor's: it passes
/// through to Vapor's `ErrorMiddleware`.
///
/// ```swift
/// let errors = DiagnosticErrorMapping { error in
///   error is FeatureUnimplemented ? .notImplemented : .internalServerError
/// }
/// app.middleware.use(FeaturesMiddleware(root: root, scope: RequestScope.self, errors: errors) { … })
/// ```
public struct DiagnosticErrorMapping: Sendable {
  /// The levels the errors are logged at.
  public var logging: DiagnosticErrorLog
  /// Picks the response status of an Arbor error that has no `AbortError` cause.
  private let status: @Sendable (any DiagnosticError) -> HTTPResponseStatus

  /// A mapping that logs server errors at `level`, client errors at `clientErrorLevel`, and answers
  /// an Arbor error with the status `status` picks.
  ///
  /// - Parameters:
  ///   - level: The level of the log entry of a server error (5xx).
  ///   - clientErrorLevel: The level of the log entry of a client error (4xx) a loader threw.
  ///   - status: The response status of an Arbor error without an `AbortError` cause; 500 by default.
  public init(
    level: Logger.Level = .error, clientErrorLevel: Logger.Level = .info,
    status: @escaping @Sendable (any DiagnosticError) -> HTTPResponseStatus = { _ in .internalServerError }
  ) {
    self.logging = DiagnosticErrorLog(level: level, clientErrorLevel: clientErrorLevel)
    self.status = status
  }

  /// The response status of `error`: its `AbortError` cause's, or the one the app maps it to.
  ///
  /// - Parameter error: An Arbor error (or any `DiagnosticError`).
  /// - Returns: The status this mapping answers with.
  public func status(for error: any DiagnosticError) -> HTTPResponseStatus {
    (DiagnosticErrorLog.cause(of: error) as? any AbortError)?.status ?? status(error)
  }

  /// Logs `error` to the request's logger and makes the response that answers it.
  ///
  /// - Parameters:
  ///   - error: The error to map.
  ///   - request: The request it failed.
  /// - Returns: The response: the cause's status, reason and headers, or the mapped status and its
  ///   reason phrase.
  func response(to error: any DiagnosticError, for request: Request) -> Response {
    let abort = DiagnosticErrorLog.cause(of: error) as? any AbortError
    let status = abort?.status ?? status(error)
    logging.log(error, statusCode: Int(status.code), to: request.logger)
    var headers = abort?.headers ?? [:]
    headers.contentType = .json
    let body = ErrorBody(error: true, reason: abort?.reason ?? status.reasonPhrase)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = (try? encoder.encode(body)) ?? Data()
    return Response(status: status, headers: headers, body: .init(data: data))
  }
}

/// Vapor's error JSON, as its `ErrorMiddleware` writes it.
private struct ErrorBody: Encodable {
  var error: Bool
  var reason: String
}
