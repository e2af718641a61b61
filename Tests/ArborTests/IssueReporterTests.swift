import Arbor
import Foundation
import Testing

/// The reporter is the user's: an installed reporter receives what no running test took (the
/// diagnostic, its kind, severity and site), and an unimplemented member then returns instead of
/// stopping the process.
@Suite(.serialized) struct IssueReporterTests {
  @Test func anInstalledReporterReceivesEachReportWithItsKindSeverityAndSite() throws {
    let received = Collected<IssueReporting.Report>()
    IssueReporting.install { received.append($0) }
    defer { IssueReporting.install(nil) }
    let line: UInt = #line + 1
    let member: @Sendable () -> Void = unimplemented("ReporterProbe.member")
    let value: @Sendable () -> Int = unimplemented("ReporterProbe.value", placeholder: 7)
    let done = Flag()
    let returned = Collected<Int>()
    // On a thread of its own, where no test is running: the test framework's reporter declines.
    Thread {
      member()  // reported, and returns
      returned.append(value())
      done.raise()
    }.start()
    #expect(done.wait())
    #expect(returned.all == [7])
    let mine = received.all.filter { $0.diagnostic.message.contains("ReporterProbe") }
    #expect(mine.map(\.kind) == ["FeatureUnimplemented", "FeatureUnimplemented"])
    #expect(mine.map(\.severity) == [.failure, .warning])
    #expect(mine.first?.site == SourceLocation(fileID: #fileID, line: line))
  }
}
