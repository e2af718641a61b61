import ArborDemoFeatures
import ArborDiagnostics
import ArborTesting
import Testing

/// Calling a member nobody patched records one issue naming the member and its placeholder.
///
/// The reporter's issues are captured (``expectIssues(_:sourceLocation:_:)``) rather than recorded,
/// but for one test that lets a real one through, as a labelled known issue.
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

  @Test func theIssueIsARealIssueOfTheRunningTest() throws {
    let features = TestFeatures()
    let printer: Printer = try features.instance()
    withKnownIssue("Expected: this test checks that an unpatched call records a real issue") {
      printer.print("Hello")
    } matching: { issue in
      issue.comments.map(\.rawValue) == [unimplementedIssue("Printer.print", at: PlaceholderSite.printer)]
    }
  }

  @Test func anUnpatchedThrowingMemberThrowsAndRecordsNoIssueOfItsOwn() throws {
    let features = TestFeatures()
    let mailer: Mailer = try features.instance()
    var error: FeatureUnimplemented?
    expectIssues([]) {
      error = #expect(throws: FeatureUnimplemented.self) { try mailer.send("Hello") }
    }
    #expect(error?.member == "Mailer.send")
    #expect(error?.location.description == PlaceholderSite.mailer)
    #expect(error.map { String(reflecting: $0) } == unimplementedIssue("Mailer.send", at: PlaceholderSite.mailer))
  }

  @Test func anUnpatchedThrowingMemberWhoseErrorReachesTheTestFailsItOnce() throws {
    let features = TestFeatures()
    let mailer: Mailer = try features.instance()
    let issues = Lock<[String]>.make([])
    try withKnownIssue("Expected: Mailer.send is left unpatched on purpose") {
      try mailer.send("Hello")  // thrown into the test, as a forgotten patch is
    } matching: { issue in
      issues.withLock {
        $0.append(issue.error.map { String(reflecting: $0) } ?? issue.comments.map(\.rawValue).joined())
      }
      return true
    }
    #expect(issues.withLock { $0 } == [unimplementedIssue("Mailer.send", at: PlaceholderSite.mailer)])
  }

  @Test func anUnpatchedThrowingMemberOutsideATestReportsOnceAndThrows() async {
    _ = TestFeatures()
    // A detached task inherits no task locals: no test is current there.
    let written = Lock<[String]>.make([])
    let thrown = await Task.detached {
      IssueReporting.$standardErrorCapture.withValue(
        IssueReporting.Capture { text in written.withLock { $0.append(text) } }
      ) {
        Result { try Mailer.placeholder.send("Hello") }
      }
    }.value
    let report = unimplementedReport("Mailer.send", at: PlaceholderSite.mailer)
    #expect(written.withLock { $0 } == ["error: " + report + "\n"])
    #expect(throws: FeatureUnimplemented.self) { try thrown.get() }
  }

  @Test func anUnpatchedValueMemberRecordsOneIssueAndReturnsItsPlaceholder() throws {
    let features = TestFeatures()
    let clock: Clock = try features.instance()
    var now: Double?
    expectIssues([unimplementedIssue("Clock.now", at: PlaceholderSite.clock)]) {
      now = clock.now()
    }
    #expect(now == 0)
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
    let issues = await capturingIssues {
      await Task { printer.print("from a task") }.value
    }
    #expect(issues.map(\.text) == [unimplementedIssue("Printer.print", at: PlaceholderSite.printer)])
    #expect(issues.map(\.sourceLocation) == [Test.current?.sourceLocation])
  }

  @Test func aCallWhereNoTestIsCurrentIsAWarningOnStandardErrorNotAnIssue() async {
    _ = TestFeatures()
    // A detached task inherits no task locals: no test is current there, so the reporter declines.
    // The value member warns (captured inside the task, not written) and returns its placeholder:
    // a report never stops the program.
    let written = Lock<[String]>.make([])
    let now = await Task.detached {
      IssueReporting.$standardErrorCapture.withValue(
        IssueReporting.Capture { text in written.withLock { $0.append(text) } }
      ) {
        Clock.placeholder.now()
      }
    }.value
    #expect(now == 0)
    #expect(
      written.withLock { $0 } == ["warning: " + unimplementedReport("Clock.now", at: PlaceholderSite.clock) + "\n"])
  }

  @Test func aPlaceholderCalledWithoutAContainerIsReportedOnceTheReporterIsInstalled() throws {
    _ = TestFeatures()  // any use of ArborTesting installs the reporter for the whole process
    expectIssues([unimplementedIssue("Printer.print", at: PlaceholderSite.printer)]) {
      Printer.placeholder.print("Hello")
    }
  }
}
