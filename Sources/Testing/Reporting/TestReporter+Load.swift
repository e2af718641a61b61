import Arbor

// A process that links ArborTesting is a test process (an app never links it). Arbor's reports
// there must become failures of the running test whatever ran first, also when the test never
// calls ArborTesting: a placeholder called directly, a branch dropped without `close()`. So the
// reporter is installed as the process loads ArborTesting, before any test runs, by a function the
// loader calls: its address is placed in the object file's list of initialisers.
//
// The function does no more than install a reporter, which needs nothing but the Swift runtime: it
// does not touch XCTest or Foundation, which may not be ready while the process loads. On the first
// report, that reporter installs the real one (registering the XCTest observer) and hands the report
// on.
//
// Compilers before 6.3 cannot place a value in a section, nor can other platforms be relied on to
// run the list: there the reporter is installed by the first ArborTesting call, as before.
#if compiler(>=6.3)
  #if os(Linux) || os(Android) || os(FreeBSD)
    @used @section(".init_array")
    private let installTestReporterOnLoad: @convention(c) () -> Void = installTestReporterAtLoad
  #elseif canImport(Darwin)
    @used @section("__DATA,__mod_init_func")
    private let installTestReporterOnLoad: @convention(c) () -> Void = installTestReporterAtLoad
  #endif
#endif

/// Installs a reporter that installs ArborTesting's on its first report, then lets it take the report.
private func installTestReporterAtLoad() {
  IssueReporting.installTestReporter(
    { report in
      TestReporter.install(at: nil)
      return TestReporter.report(report)
    }, isRunning: { TestReporter.isRunning })
}
