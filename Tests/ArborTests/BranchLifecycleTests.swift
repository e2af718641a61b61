import Arbor
import Testing

/// The lifecycle state machine as a value: every legal sequence of events up to a length, with no
/// threads and no sleeps, checked against what the contract promises.
@Suite struct BranchLifecycleTests {
  typealias Lifecycle = BranchLifecycle<Int, [String]>

  enum Event: Equatable, CustomStringConvertible {
    /// The branch was made under a closing parent.
    case madeUnderClosingParent
    /// A close reached the branch, called at `site` (a line) `levelsUp` levels above it.
    case startClose(site: UInt, levelsUp: Int)
    /// A later close waits for the outcome, as waiter `id`.
    case wait(id: Int)
    /// The close that runs ends with `outcome`.
    case finish(outcome: [String])

    var description: String {
      switch self {
      case .madeUnderClosingParent: "made under a closing parent"
      case .startClose(let site, let levelsUp): "close at line \(site), \(levelsUp) up"
      case .wait(let id): "wait #\(id)"
      case .finish(let outcome): "finish \(outcome)"
      }
    }
  }

  static let alphabet: [Event] = [
    .madeUnderClosingParent, .startClose(site: 1, levelsUp: 0), .startClose(site: 2, levelsUp: 1),
    .wait(id: 0), .wait(id: 1), .finish(outcome: []), .finish(outcome: ["Cache threw"]),
  ]

  /// What the contract allows next, given the events so far: a branch is refused only as it is
  /// made, a waiter waits only once a close started, and only the close that runs finishes, once.
  static func isLegal(_ event: Event, after events: [Event]) -> Bool {
    let started = events.contains { if case .startClose = $0 { true } else { false } }
    let finished = events.contains { if case .finish = $0 { true } else { false } }
    switch event {
    case .madeUnderClosingParent: return events.isEmpty
    case .startClose: return true
    case .wait(let id): return started && !events.contains(.wait(id: id))
    case .finish: return started && !finished
    }
  }

  /// Every legal sequence of at most `length` events.
  static func sequences(upTo length: Int) -> [[Event]] {
    var all: [[Event]] = [[]]
    var frontier: [[Event]] = [[]]
    for _ in 0..<length {
      frontier = frontier.flatMap { events in
        alphabet.filter { isLegal($0, after: events) }.map { events + [$0] }
      }
      all += frontier
    }
    return all
  }

  @Test func everySequenceKeepsTheContract() {
    let sequences = Self.sequences(upTo: 6)
    #expect(sequences.count > 1_000)
    for events in sequences {
      var lifecycle = Lifecycle()
      var firstCloser: Lifecycle.Closer?
      var outcome: [String]?
      var resumed: [Int: [String]] = [:]
      var suspended: Set<Int> = []
      var wasClosed = false
      for event in events {
        let context = Comment(rawValue: "after \(events)")
        switch event {
        case .madeUnderClosingParent:
          lifecycle.madeUnderClosingParent()
          #expect(lifecycle.closer == nil, context)
        case .startClose(let site, let levelsUp):
          let closer = Lifecycle.Closer(site: SourceLocation(fileID: "App/Main.swift", line: site), levelsUp: levelsUp)
          let action = lifecycle.startClose(closer)
          // Only the first close runs the teardowns; every later one waits for its outcome.
          #expect(action == (firstCloser == nil ? .run : .waitForOutcome), context)
          if firstCloser == nil { firstCloser = closer }
        case .wait(let id):
          switch lifecycle.waitForOutcome(id) {
          case .suspend:
            #expect(outcome == nil, context)
            suspended.insert(id)
          case .resume(let ended):
            #expect(ended == outcome, context)
            resumed[id] = ended
          }
        case .finish(let ended):
          let waiters = lifecycle.finishClose(with: ended)
          #expect(Set(waiters) == suspended, context)
          #expect(waiters.count == suspended.count, context)  // each once
          for waiter in waiters { resumed[waiter] = ended }
          suspended = []
          outcome = ended
        }
        // Closed from the first event on, and never open again.
        #expect(lifecycle.isClosed, context)
        #expect(!wasClosed || lifecycle.isClosed, context)
        wasClosed = lifecycle.isClosed
        // The first close's site and level is who closed the branch, whatever came after.
        #expect(lifecycle.closer == firstCloser, context)
        #expect(lifecycle.hasEnded == (outcome != nil), context)
      }
      // Every waiter is resumed exactly once with the close's outcome, or is still suspended
      // because the close has not ended.
      for (id, ended) in resumed { #expect(ended == outcome, "waiter \(id) after \(events)") }
      #expect(outcome != nil || resumed.isEmpty, "after \(events)")
      #expect(outcome == nil || suspended.isEmpty, "after \(events)")
    }
  }

  @Test func aRefusedBranchIsClosedButNamesNoCloserUntilACloseReachesIt() {
    var lifecycle = Lifecycle()
    #expect(!lifecycle.isClosed)
    lifecycle.madeUnderClosingParent()
    #expect(lifecycle.isClosed)
    #expect(lifecycle.closer == nil)
    let closer = Lifecycle.Closer(site: SourceLocation(fileID: "App/Main.swift", line: 9), levelsUp: 1)
    #expect(lifecycle.startClose(closer) == .run)
    #expect(lifecycle.closer == closer)
  }

  @Test func aWaiterAfterTheEndGetsTheOutcomeAtOnce() {
    var lifecycle = Lifecycle()
    #expect(lifecycle.startClose(.init(site: SourceLocation(fileID: "A.swift", line: 1), levelsUp: 0)) == .run)
    guard case .suspend = lifecycle.waitForOutcome(7) else {
      Issue.record("a waiter during the close suspends")
      return
    }
    #expect(lifecycle.finishClose(with: ["Pool threw"]) == [7])
    guard case .resume(let outcome) = lifecycle.waitForOutcome(8) else {
      Issue.record("a waiter after the close resumes at once")
      return
    }
    #expect(outcome == ["Pool threw"])
  }
}
