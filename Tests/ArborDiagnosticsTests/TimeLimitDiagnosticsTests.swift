import Arbor
import Testing

/// A time limit that was passed reads as every other duration of a diagnostic: to the millisecond,
/// in the unit a person would say.
@Suite struct TimeLimitDiagnosticsTests {
  @Test func aStartStepThatPassedWhatWasLeftOfTheStartsTimeoutReadsInWholeUnits() {
    let diagnostic = FeaturesStartFailed.timedOut(
      "Database", path: ["start()", "Database"], limit: .nanoseconds(999_968_041), implementation: nil,
      fix: "find what Database waits for")
    #expect(diagnostic.message == "Database did not end within 1 s")
  }

  @Test(arguments: [
    (Duration.milliseconds(50), "50 ms"), (.seconds(30), "30 s"), (.milliseconds(1_500), "1.5 s"),
    (.seconds(90), "1 min 30 s"),
  ])
  func aTeardownTimeLimitReadsAsEveryOtherDuration(limit: Duration, rendered: String) {
    #expect(TeardownTimedOut(limit: limit).diagnostic.message == "the teardown did not end within \(rendered)")
  }
}
