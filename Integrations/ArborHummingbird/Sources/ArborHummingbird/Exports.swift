// `import ArborHummingbird` is all a Hummingbird server's Arbor code needs: Arbor itself and the
// server parts that are not Hummingbird's (FeaturesService, IdleBranchesEviction,
// LoggingIssueReporter, ServerMain, DiagnosticLogMetadata) come with it.
@_exported import Arbor
@_exported import ArborServiceLifecycle
