import Arbor
import Synchronization
import Testing

/// A cacheable unit's word (``UnitState``) as a value: every legal sequence of claims, waits, ends
/// and renewals up to a length, applied to one word in memory, checked after each event against
/// what the word must hold and answer. No threads, no sleeps: the threads are objects only.
@Suite struct UnitWordTests {
  enum Event: CaseIterable, CustomStringConvertible {
    case claimByFirst, claimBySecond, claimWhileClosing, markWaited, settleLoaded, settleFailed, relocate

    var description: String {
      switch self {
      case .claimByFirst: "claim (thread 1)"
      case .claimBySecond: "claim (thread 2)"
      case .claimWhileClosing: "claim (closing)"
      case .markWaited: "mark waited"
      case .settleLoaded: "settle (loaded)"
      case .settleFailed: "settle (failed)"
      case .relocate: "relocate"
      }
    }
  }

  /// What the word holds, kept the simplest way.
  enum Model: Equatable {
    case empty
    /// A load of thread `owner` (0 or 1), and whether a request marked it waited.
    case loading(owner: Int, waited: Bool)
    case loaded
    /// Renewed: the branch's load table holds the feature's loads from now on.
    case relocated
  }

  /// Every legal sequence of at most `length` events: only the owner of a load settles it.
  static func sequences(upTo length: Int) -> [[Event]] {
    var all: [[Event]] = [[]]
    var frontier: [(events: [Event], model: Model)] = [([], .empty)]
    for _ in 0..<length {
      frontier = frontier.flatMap { sequence in
        Event.allCases.compactMap { event in
          expected(after: event, from: sequence.model).map { (sequence.events + [event], $0.model) }
        }
      }
      all += frontier.map(\.events)
    }
    return all
  }

  /// What `event` answers from `model`, and the model after it; `nil` when the event cannot happen
  /// there (a settle with no load in progress).
  static func expected(after event: Event, from model: Model) -> (answer: String, model: Model)? {
    switch (event, model) {
    // A closing branch starts no load, whatever the word holds: the claim does not read it.
    case (.claimWhileClosing, _):
      ("refused", model)
    case (.claimByFirst, .relocated), (.claimBySecond, .relocated):
      ("nil", model)
    case (.claimByFirst, .empty):
      ("own 0", .loading(owner: 0, waited: false))
    case (.claimBySecond, .empty):
      ("own 1", .loading(owner: 1, waited: false))
    case (.claimByFirst, .loading(let owner, _)), (.claimBySecond, .loading(let owner, _)):
      ("join \(owner)", model)
    case (.claimByFirst, .loaded), (.claimBySecond, .loaded):
      ("cached", model)
    case (.markWaited, .loading(let owner, false)):
      ("marked \(owner)", .loading(owner: owner, waited: true))
    case (.markWaited, .loading(_, true)):
      ("already waited", model)
    case (.markWaited, _):
      ("ended", model)
    case (.settleLoaded, .loading(_, let waited)):
      ("\(waited)", .loaded)
    case (.settleFailed, .loading(_, let waited)):
      ("\(waited)", .empty)
    case (.settleLoaded, _), (.settleFailed, _):
      nil
    case (.relocate, .loaded):
      ("true", .relocated)
    case (.relocate, _):
      ("false", model)
    }
  }

  @Test func everySequenceOfClaimsWaitsEndsAndRenewalsKeepsTheWordsEncoding() {
    let sequences = Self.sequences(upTo: 6)
    #expect(sequences.count > 10_000)
    let threads = [LoadingThread(), LoadingThread()]
    let references = threads.map { UncountedReference($0) }
    /// The thread among `threads` that `reference` is.
    func index(_ reference: UncountedReference<LoadingThread>) -> Int {
      threads.firstIndex { $0 === reference.object } ?? -1
    }
    let word = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: 1)
    word.initialize(to: Atomic(0))
    defer { word.deallocate() }
    let unit = UnitState(SharedWord(word))
    var relocations = 0
    for events in sequences {
      word.pointee.store(0, ordering: .relaxed)
      var model = Model.empty
      for (position, event) in events.enumerated() {
        let context = Comment(rawValue: "\(event) after \(events[..<position])")
        let answer: String
        switch event {
        case .claimByFirst, .claimBySecond, .claimWhileClosing:
          let thread = event == .claimBySecond ? 1 : 0
          answer =
            switch unit.claim(for: references[thread], isOpen: event != .claimWhileClosing) {
            case nil: "nil"
            case .refused?: "refused"
            case .cached?: "cached"
            case .join(let owner)?: "join \(index(owner))"
            case .own(let owner)?: "own \(index(owner))"
            }
        case .markWaited:
          answer =
            switch unit.markWaited() {
            case .ended: "ended"
            case .alreadyWaited: "already waited"
            case .marked(let owner): "marked \(index(owner))"
            }
        case .settleLoaded, .settleFailed:
          answer = "\(unit.settle(loaded: event == .settleLoaded))"
        case .relocate:
          answer = "\(unit.relocate())"
        }
        guard let expected = Self.expected(after: event, from: model) else {
          Issue.record("an illegal event was enumerated: \(context)")
          break
        }
        #expect(answer == expected.answer, context)
        model = expected.model
        if model == .relocated { relocations += 1 }
        // What the rest of the branch reads of the word.
        #expect(unit.isLoaded == (model == .loaded), context)
        #expect(unit.isRelocated == (model == .relocated), context)
        #expect(unit.holdsInstance == (model == .loaded || model == .relocated), context)
        #expect(unit.violation(quiescent: false) == nil, context)
        switch model {
        case .loading(_, let waited):
          #expect(unit.isClaimed, context)
          #expect(
            unit.violation(quiescent: true)
              == "is claimed by a load in progress" + (waited ? ", waited for" : ""), context)
        case .empty, .loaded, .relocated:
          #expect(!unit.isClaimed, context)
          #expect(unit.violation(quiescent: true) == nil, context)
        }
      }
    }
    #expect(relocations > 1_000)
  }
}
