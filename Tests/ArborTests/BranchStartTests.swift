import Arbor
import Testing

/// The start state machine as a value: every legal sequence of events up to a length.
@Suite struct BranchStartTests {
  typealias Start = BranchStart<Int, String?>

  enum Event: Equatable {
    case start
    case wait(Int)
    case finish(String?)
  }

  @Test func everySequenceRunsTheStartOnceAndGivesEveryCallerItsOutcome() {
    let alphabet: [Event] = [.start, .wait(0), .wait(1), .wait(2), .finish(nil), .finish("Database failed")]
    var frontier: [[Event]] = [[]]
    var checked = 0
    for _ in 0..<6 {
      frontier = frontier.flatMap { events in
        alphabet.filter { event in
          let began = events.contains(.start)
          let ended = events.contains { if case .finish = $0 { true } else { false } }
          switch event {
          case .start: return true
          case .wait(let id): return began && !events.contains(.wait(id))
          case .finish: return began && !ended
          }
        }.map { events + [$0] }
      }
      for events in frontier {
        checked += 1
        var start = Start()
        var runs = 0
        var outcome: String??
        var suspended: Set<Int> = []
        var answered: [String?] = []
        for event in events {
          switch event {
          case .start:
            switch start.start() {
            case .run: runs += 1
            case .wait: #expect(outcome == nil && runs == 1, "after \(events)")
            case .ended(let ended): answered.append(ended)
            }
          case .wait(let id):
            if let ended = start.wait(id) { answered.append(ended) } else { suspended.insert(id) }
          case .finish(let failure):
            #expect(Set(start.finish(failure)) == suspended, "after \(events)")
            answered += suspended.map { _ in failure }
            suspended = []
            outcome = .some(failure)
          }
        }
        #expect(runs == (events.contains(.start) ? 1 : 0), "after \(events)")
        if let outcome { #expect(answered.allSatisfy { $0 == outcome }, "after \(events)") }
        #expect(outcome == nil || suspended.isEmpty, "after \(events)")
      }
    }
    #expect(checked > 500)
  }
}
