import Arbor
import Logging

/// How a server integration logs an Arbor error it answers with a status: at which level, with
/// which message, and the error the app threw on purpose found inside Arbor's wrapping.
///
/// A loader that throws (an `HTTPError(.notFound)` for a todo that does not exist, say) fails its
/// request with `FeatureLoadingFailed`, whose `cause` is what it threw; a loader that requested a
/// feature whose loader threw wraps that one in turn. ``cause(of:)`` looks through every layer to
/// the app's own error, so the integration can answer with that error's status, and ``log(_:statusCode:to:)``
/// logs a client error (4xx) at ``clientErrorLevel``, below the ``level`` of server errors.
///
/// ```swift
/// let logging = DiagnosticErrorLog(level: .error, clientErrorLevel: .info)
/// let cause = DiagnosticErrorLog.cause(of: error) as? HTTPError
/// logging.log(error, statusCode: Int(cause?.status.code ?? 500), to: logger)
/// ```
public struct DiagnosticErrorLog: Sendable {
  /// The level of a server error's entry (a status of 500 or more, or none of 400 to 499).
  public var level: Logger.Level
  /// The level of a client error's entry (a status from 400 to 499).
  public var clientErrorLevel: Logger.Level

  /// Levels for server and client errors.
  ///
  /// - Parameters:
  ///   - level: The level of a server error's entry.
  ///   - clientErrorLevel: The level of a client error's entry.
  public init(level: Logger.Level = .error, clientErrorLevel: Logger.Level = .info) {
    self.level = level
    self.clientErrorLevel = clientErrorLevel
  }

  /// The error the app's own code threw, inside Arbor's wrapping of `error`, or `nil` when `error`
  /// is Arbor's own (a feature never registered, a scope never defined).
  ///
  /// ```swift
  /// if let http = DiagnosticErrorLog.cause(of: error) as? HTTPError { return http.status }
  /// ```
  ///
  /// - Parameter error: An error a request failed with.
  /// - Returns: The innermost cause of a chain of `FeatureLoadingFailed`, when it is not an Arbor
  ///   error itself.
  public static func cause(of error: any Error) -> (any Error)? {
    var current = error
    while let failed = current as? FeatureLoadingFailed { current = failed.cause }
    return current is any DiagnosticError ? nil : current
  }

  /// The level of an entry for a response with `statusCode`.
  ///
  /// - Parameter statusCode: The response's status code.
  /// - Returns: ``clientErrorLevel`` from 400 to 499, ``level`` otherwise.
  public func level(forStatusCode statusCode: Int) -> Logger.Level {
    (400..<500).contains(statusCode) ? clientErrorLevel : level
  }

  /// Logs `error`, answered with `statusCode`: its one-line summary as the message (which ends with
  /// the app's error, when a loader threw one), its diagnostic as metadata (the keys of
  /// ``DiagnosticLogMetadata``) and the status under `http.response.status_code`.
  ///
  /// ```
  /// info: FeatureLoadingFailed: could not load Todo (App/Routes.swift:14) ← HTTPError: Not Found
  /// ```
  ///
  /// - Parameters:
  ///   - error: The Arbor error the request failed with.
  ///   - statusCode: The response's status code.
  ///   - logger: The request's logger.
  public func log(_ error: any DiagnosticError, statusCode: Int, to logger: Logger) {
    logger.log(
      level: level(forStatusCode: statusCode), diagnostic: error.diagnostic,
      metadata: ["http.response.status_code": .string(String(statusCode))])
  }
}
