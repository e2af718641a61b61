import Arbor
import Testing

/// The state machine every load follows, as a value: every legal sequence of claims and ends up to
/// a length, with no threads and no sleeps, checked against what each request must be told.
@Suite struct LoadStateTests {
  /// Loads are numbered in the order requests start them.
  typealias State = LoadState<Int>

  enum Event: CaseIterable, CustomStringConvertible {
    case claimWhileOpen, claimWhileClosing, endLoaded, endFailed

    var description: String {
      switch self {
      case .claimWhileOpen: "claim"
      case .claimWhileClosing: "claim (closing)"
      case .endLoaded: "end (loaded)"
      case .endFailed: "end (failed)"
      }
    }
  }

  /// Every legal sequence of at most `length` events: only a load in flight ends.
  static func sequences(upTo length: Int) -> [[Event]] {
    var all: [[Event]] = [[]]
    var frontier: [[Event]] = [[]]
    for _ in 0..<length {
      frontier = frontier.flatMap { events in
        Event.allCases.filter { event in
          switch event {
          case .endLoaded, .endFailed: isLoading(after: events)
          case .claimWhileOpen, .claimWhileClosing: true
          }
        }.map { events + [$0] }
      }
      all += frontier
    }
    return all
  }

  /// Whether a load is in flight after `events`: the last claim that started one has not ended.
  static func isLoading(after events: [Event]) -> Bool {
    var loading = false
    var loaded = false
    for event in events {
      switch event {
      case .claimWhileOpen: if !loaded { loading = true }
      case .claimWhileClosing: break
      case .endLoaded: (loading, loaded) = (false, true)
      case .endFailed: loading = false
      }
    }
    return loading
  }

  @Test func everySequenceRunsOneLoaderAtATimeAndCachesOnlyWhatLoaded() {
    let sequences = Self.sequences(upTo: 7)
    #expect(sequences.count > 1_000)
    for events in sequences {
      var state = State.idle
      // The model: the load in flight, whether an instance is cached, the loads started.
      var inFlight: Int?
      var cached = false
      var started = 0
      for event in events {
        let context = Comment(rawValue: "\(event) after \(events)")
        switch event {
        case .claimWhileOpen, .claimWhileClosing:
          var starts = 0
          let claim = state.claim(isOpen: event == .claimWhileOpen) {
            starts += 1
            return started
          }
          switch (event, claim) {
          case (.claimWhileClosing, .refused):
            #expect(starts == 0, context)
          case (.claimWhileOpen, .cached) where cached:
            #expect(starts == 0, context)
          case (.claimWhileOpen, .join(let load)) where inFlight == load:
            #expect(starts == 0, context)
          case (.claimWhileOpen, .own(let load)) where !cached && inFlight == nil:
            #expect(load == started && starts == 1, context)
            inFlight = load
            started += 1
            state = .loading(load)
          default:
            Issue.record(Comment(rawValue: "\(event) answered \(claim) after \(events)"))
          }
        case .endLoaded, .endFailed:
          state = .ended(loaded: event == .endLoaded)
          inFlight = nil
          cached = event == .endLoaded
        }
        switch state {
        case .idle: #expect(!cached && inFlight == nil, context)
        case .loading(let load): #expect(!cached && inFlight == load, context)
        case .loaded: #expect(cached && inFlight == nil, context)
        }
      }
    }
  }

  @Test func aFailedLoadIsNotCachedAndTheNextClaimStartsAnother() {
    let claimed = State.idle.claim(isOpen: true) { 1 }
    guard case .own(1) = claimed else {
      Issue.record("the first claim answered \(claimed)")
      return
    }
    let afterFailure = State.ended(loaded: false).claim(isOpen: true) { 2 }
    guard case .own(2) = afterFailure else {
      Issue.record("the claim after a failure answered \(afterFailure)")
      return
    }
  }
}
