import Arbor
import Testing

/// Durations in `which`, the graph and reports read as a person reads them, to the millisecond.
@Suite struct DurationRenderingTests {
  @Test(arguments: [
    (Duration.zero, "0 s"), (.milliseconds(250), "250 ms"), (.microseconds(400), "0 s"),
    (.milliseconds(1500), "1.5 s"), (.seconds(30), "30 s"), (.milliseconds(30_010), "30.01 s"),
    (.seconds(60), "1 min"), (.seconds(125), "2 min 5 s"), (.seconds(3600), "1 h"),
    (.seconds(5400), "1 h 30 min"), (.seconds(90_061), "25 h 1 min 1 s"), (.milliseconds(-1500), "1.5 s"),
    (.milliseconds(999.9), "1 s"),
  ])
  func reads(duration: Duration, as text: String) {
    #expect(duration.rendered == text)
  }

  @Test func theLongestDurationsNeitherOverflowNorCrash() {
    #expect(Duration.seconds(Int64.max).rendered == "2562047788015215 h 30 min 7 s")
    #expect(Duration.seconds(Int64.min).rendered == "2562047788015215 h 30 min 8 s")
    #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
    #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
    #expect(Duration.milliseconds(-1500).wholeMilliseconds == -1500)
  }
}
