import Arbor
import ArborDemoFeatures
import Testing

/// A feature registered twice in one scope fails every request for it with both sites.
@Suite struct FeatureRegistrationConflictTests {
  @Test func aDuplicateRegistrationShowsBothSites() throws {
    let base = #line
    let (root, reports) = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(.disposable(implementation: "console()") { _ in Printer.placeholder })
        registry.use(.disposable(implementation: "silent()") { _ in Printer.placeholder })
      }
    }
    // Reported as the root is built, where the root is built; every request then throws it.
    #expect(
      reports.map { $0.diagnostic.renderedTree() } == [
        """
        FeatureRegistrationConflict: Printer is registered 2 times in Root
        ├─ scope: Root
        ├─ root built at: \(site(base + 2))
        ├─ registrations: Printer.console() at \(site(base + 3))
        │                 Printer.silent() at \(site(base + 4))
        └─ fix: keep one registration of Printer in FeaturesRoot
        """
      ])
    let line = #line + 1
    let error = #expect(throws: FeatureRegistrationConflict.self) { try root.instance(of: Printer.self) }
    #expect(error?.feature == Printer.self)
    expectRenderings(
      of: error,
      tree: """
        FeatureRegistrationConflict: Printer is registered 2 times in Root
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ registrations: Printer.console() at \(site(base + 3))
        │                 Printer.silent() at \(site(base + 4))
        └─ fix: keep one registration of Printer in FeaturesRoot
        """,
      line: "FeatureRegistrationConflict: Printer is registered 2 times in Root (\(site(line)))")
  }

  @Test func aDuplicateInANestedScopeSaysThatOneRegistrationThereReplacesTheAncestors() throws {
    let base = #line
    let (built, reports) = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(.disposable(implementation: "console()") { _ in Printer.placeholder })
        registry.defineScope(SessionScope.self) { registry in
          registry.use(.disposable(implementation: "silent()") { _ in Printer.placeholder })
          registry.use(.disposable(implementation: "file()") { _ in Printer.placeholder })
        }
      }
    }
    #expect(reports.map(\.diagnostic.kind) == ["FeatureRegistrationConflict"])  // reported as the root is built
    let session = try built.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeatureRegistrationConflict.self) { try session.instance(of: Printer.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureRegistrationConflict: Printer is registered 2 times in SessionScope
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ registrations: Printer.silent() at \(site(base + 5))
        │                 Printer.file() at \(site(base + 6))
        └─ fix: keep one registration of Printer in defineScope(SessionScope.self); to replace an ancestor's, registering once here is enough
        """,
      line: "FeatureRegistrationConflict: Printer is registered 2 times in SessionScope (\(site(line)))")
  }
}
