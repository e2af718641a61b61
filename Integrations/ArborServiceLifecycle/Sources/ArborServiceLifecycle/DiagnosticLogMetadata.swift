import Arbor
import Logging

/// The metadata keys under which Arbor's integrations log a diagnostic, and the metadata of one.
///
/// Every log entry an Arbor server integration writes about a diagnostic (an error mapped to a
/// response, a failed validation, a report) carries the same keys, so one log query finds them all:
/// the diagnostic's JSON under ``diagnosticKey`` and its kind under ``kindKey``.
///
/// ```swift
/// logger.error("\(error.diagnostic.summary())", metadata: DiagnosticLogMetadata.metadata(for: error.diagnostic))
/// ```
public enum DiagnosticLogMetadata {
  /// The key of the diagnostic's JSON: `arbor.diagnostic`.
  public static let diagnosticKey = "arbor.diagnostic"
  /// The key of the diagnostic's kind, such as `FeatureUndefined`: `arbor.diagnostic.kind`.
  public static let kindKey = "arbor.diagnostic.kind"

  /// The metadata of `diagnostic`: its JSON on one line under ``diagnosticKey`` and its kind under
  /// ``kindKey``.
  ///
  /// - Parameter diagnostic: The diagnostic to log.
  /// - Returns: The metadata.
  public static func metadata(for diagnostic: Diagnostic) -> Logger.Metadata {
    [diagnosticKey: .string(diagnostic.json(pretty: false)), kindKey: .string(diagnostic.kind)]
  }
}
