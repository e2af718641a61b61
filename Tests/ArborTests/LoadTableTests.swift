import Arbor
import Testing

/// The load state machine as a value: every legal sequence of events on two keys up to a length,
/// with no threads and no sleeps, checked against a model of what each request must do.
@Suite struct LoadTableTests {
  /// Loads are numbered in the order requests start them.
  typealias Table = LoadTable<Int, Int>

  enum Branch: CustomStringConvertible {
    case closing, cached, uncached

    var description: String {
      switch self {
      case .closing: "closing"
      case .cached: "open, cached"
      case .uncached: "open"
      }
    }
  }

  enum Event: CustomStringConvertible {
    /// A request for `key`, finding the branch and its storage as `branch` says.
    case claim(key: Int, Branch)
    /// A request waits for a load of `key` claimed through its unit's word.
    case waitForUnit(key: Int)
    /// The load of `key` ends (its instance published, or failed).
    case finish(key: Int)

    var description: String {
      switch self {
      case .claim(let key, let branch): "claim \(key) (\(branch))"
      case .waitForUnit(let key): "wait for unit \(key)"
      case .finish(let key): "finish \(key)"
      }
    }
  }

  static let alphabet: [Event] =
    [0, 1].flatMap { key in [Branch.closing, .cached, .uncached].map { Event.claim(key: key, $0) } }
    + [.waitForUnit(key: 0), .finish(key: 0), .finish(key: 1)]

  /// Only the owner of a load in flight finishes it, once: the keys in flight after `events`.
  static func keysInFlight(after events: [Event]) -> Set<Int> {
    var keys: Set<Int> = []
    for event in events {
      switch event {
      case .claim(let key, .uncached), .waitForUnit(let key): keys.insert(key)
      case .claim: break
      case .finish(let key): keys.remove(key)
      }
    }
    return keys
  }

  /// Every legal sequence of at most `length` events.
  static func sequences(upTo length: Int) -> [[Event]] {
    var all: [[Event]] = [[]]
    var frontier: [[Event]] = [[]]
    for _ in 0..<length {
      frontier = frontier.flatMap { events in
        let inFlight = keysInFlight(after: events)
        return alphabet.filter {
          if case .finish(let key) = $0 { return inFlight.contains(key) }
          return true
        }.map { events + [$0] }
      }
      all += frontier
    }
    return all
  }

  @Test func everySequenceLoadsEachKeyOnceAtATimeAndRefusesWhileClosing() {
    let sequences = Self.sequences(upTo: 5)
    #expect(sequences.count > 10_000)
    for events in sequences {
      var table = Table()
      // The model: the load in flight for each key.
      var loading: [Int: Int] = [:]
      var started = 0
      for event in events {
        let context = Comment(rawValue: "after \(events)")
        switch event {
        case .claim(let key, let branch):
          var starts = 0
          let claim = table.claim(key, isOpen: branch != .closing, isCached: branch == .cached) {
            starts += 1
            return started
          }
          switch (branch, claim, loading[key]) {
          case (.closing, .refused, _):
            // A closing branch starts no load, and lets those in flight end.
            #expect(starts == 0, context)
          case (.cached, .cached, _):
            #expect(starts == 0, context)
          case (.uncached, .join(let load), let inFlight?):
            // Every request for a key in flight waits for that one load.
            #expect(load == inFlight, context)
            #expect(starts == 0, context)
          case (.uncached, .own(let load), nil):
            // The first request for an idle key starts its load, once.
            #expect(load == started && starts == 1, context)
            loading[key] = load
            started += 1
          default:
            Issue.record(Comment(rawValue: "\(event) answered \(claim) after \(events)"))
          }
        case .waitForUnit(let key):
          // The first request to wait has the table track the unit's load; later ones find it.
          if let inFlight = loading[key] {
            #expect(table.inFlight(of: key) == inFlight, context)
          } else {
            #expect(table.inFlight(of: key) == nil, context)
            table.track(key, started)
            loading[key] = started
            started += 1
          }
        case .finish(let key):
          #expect(table.finish(key) == loading[key], context)
          loading[key] = nil
        }
        #expect(Set(table.inFlight) == Set(loading.values), context)
        #expect(table.isIdle == loading.isEmpty, context)
      }
    }
  }

  @Test func aFailedLoadLeavesItsKeyIdleForTheNextRequest() {
    var table = Table()
    guard case .own(let first) = table.claim(7, isOpen: true, isCached: false, starting: { 1 }) else {
      Issue.record("the first request did not start the load")
      return
    }
    table.finish(7)  // its loader threw: nothing is cached
    guard case .own(let second) = table.claim(7, isOpen: true, isCached: false, starting: { 2 }) else {
      Issue.record("the request after a failure did not start a new load")
      return
    }
    #expect([first, second] == [1, 2])
    #expect(table.inFlight == [2])
  }
}
