// The README's sample, compiled here (the README shows this function's body).
import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycle
import Logging
import ServiceLifecycle

/// Runs `server` with the features service before it and idle eviction beside it, as the README does.
func readmeSample(
  root: Features, sessions: KeyedBranches<String, SessionScope>, server: some Service, logger: Logger
) async throws {
  let features = FeaturesService(root: root, logger: logger) { contexts in
    contexts.use(Session(user: "validation"), for: SessionScope.self)
  }
  let group = ServiceGroup(
    services: [features, server, IdleBranchesEviction(sessions, every: .seconds(60))], logger: logger)
  LoggingIssueReporter(logger: logger).install()
  try await group.run()
}
