import ArborDemoFeatures
import ArborTesting
import Testing

/// Calling a member nobody patched records one issue naming the member and its placeholder.
@Suite struct UnimplementedReportingTests {
  @Test func anUnpatchedVoidMemberRecordsOneIssueAndReturns() throws {
    let features = TestFeatures()
    let printer: Printer = try features.instance()
    expectIssues([
      """
      FeatureUnimplemented: Unimplemented: Printer.print
      ├─ placeholder at: ArborDemoFeatures/Printer.swift:21
      └─ fix: patch it in the test with features.patch(\\Printer.print, with: ...),
              or resolve Printer from a tree that registers an implementation
      """
    ]) {
      printer.print("Hello")
    }
  }

  @Test func anUnpatchedThrowingMemberRecordsOneIssueAndThrows() throws {
    let features = TestFeatures()
    let mailer: Mailer = try features.instance()
    expectIssues([unimplementedIssue("Mailer.send", at: PlaceholderSite.mailer)]) {
      let error = #expect(throws: FeatureUnimplemented.self) { try mailer.send("Hello") }
      #expect(error?.member == "Mailer.send")
      #expect(error?.location.description == PlaceholderSite.mailer)
    }
  }

  @Test func anUnpatchedValueMemberRecordsOneIssueAndReturnsItsPlaceholder() throws {
    let features = TestFeatures()
    let clock: Clock = try features.instance()
    expectIssues([unimplementedIssue("Clock.now", at: PlaceholderSite.clock)]) {
      #expect(clock.now() == 0)
    }
  }

  @Test func eachCallRecordsItsOwnIssue() throws {
    let features = TestFeatures()
    features.patch(\Printer.print, with: { _ in })
    let clock: Clock = try features.instance()
    let printer: Printer = try features.instance()
    let issue = unimplementedIssue("Clock.now", at: PlaceholderSite.clock)
    expectIssues([issue, issue]) {
      printer.print("\(clock.now())")
      printer.print("\(clock.now())")
    }
  }

  @Test func aCallInATaskTheTestStartsIsRecordedInTheTest() async throws {
    let features = TestFeatures()
    let printer: Printer = try await features.instance()
    await withKnownIssue {
      await Task { printer.print("from a task") }.value
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        unimplementedIssue("Printer.print", at: PlaceholderSite.printer)
      ]
    }
  }

  @Test func aCallWhereNoTestIsCurrentIsAWarningOnStandardErrorNotAnIssue() async {
    _ = TestFeatures()
    // A detached task inherits no task locals: no test is current there. The value member warns
    // and returns its placeholder; one with nothing to return would stop the program.
    let now = await Task.detached { Clock.placeholder.now() }.value
    #expect(now == 0)
  }

  @Test func aPlaceholderCalledWithoutAContainerIsReportedOnceTheReporterIsInstalled() throws {
    _ = TestFeatures()  // any use of ArborTesting installs the reporter for the whole process
    expectIssues([unimplementedIssue("Printer.print", at: PlaceholderSite.printer)]) {
      Printer.placeholder.print("Hello")
    }
  }
}
