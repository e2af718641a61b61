// `import ArborVapor` is all a Vapor server's Arbor code needs: Arbor itself and the server parts
// that are not Vapor's (FeaturesService, IdleBranchesEviction, LoggingIssueReporter, ServerMain,
// DiagnosticLogMetadata) come with it.
@_exported import Arbor
@_exported import ArborServiceLifecycle
