// The server parts that are not Hummingbird's (FeaturesService, IdleBranchesEviction,
// LoggingIssueReporter, DiagnosticLogMetadata) come with `import ArborHummingbird`.
@_exported import ArborServiceLifecycle
