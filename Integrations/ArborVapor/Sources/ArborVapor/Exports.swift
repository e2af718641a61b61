// The server parts that are not Vapor's (FeaturesService, IdleBranchesEviction, LoggingIssueReporter,
// ServerMain, DiagnosticLogMetadata) come with `import ArborVapor`.
@_exported import ArborServiceLifecycle
