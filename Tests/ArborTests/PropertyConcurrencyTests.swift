import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Foundation
import Testing

/// Sets and reads from many threads at once: every read is a value some set made (never a mix of
/// two), a thread never sees a value older than one it saw, and once the sets stop every branch
/// reads the last value. Run under `--sanitize=thread` too (`.ci/run`).
@Suite struct PropertyConcurrencyTests {
  static let sets = runsUnderThreadSanitizer ? 300 : 3_000

  static func root() -> Features {
    FeaturesRoot { registry in
      registry.set(Pair.self, to: Pair.Value(number: 0, text: "0"))
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
  }

  @Test func readersSeeWholeValuesNeverGoBackAndEndOnTheLastSet() async throws {
    let root = Self.root()
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let annRequest = try ann.branch(RequestScope.self, context: 1)
    let bobRequest = try bob.branch(RequestScope.self, context: 2)
    let done = Flag()
    let writers = Tally()
    let problems = Collected<String>()
    await onDedicatedThreads(6) { index in
      switch index {
      case 0:  // the root's writer: bob's branches see every one of its sets
        for number in 1...Self.sets { root[Pair.self] = Pair.Value(number: number, text: "\(number)") }
        if writers.next() == 2 { done.raise() }
      case 1:  // ann's writer: shadows the root for ann's branches
        for number in 1...Self.sets {
          ann[Pair.self] = Pair.Value(number: number, text: "\(number)")
          ann[GreetingLocale.self] = "locale \(number)"
        }
        if writers.next() == 2 { done.raise() }
      default:
        // Readers, on every branch, until both writers are done.
        var last = [Int](repeating: 0, count: 3)
        repeat {
          for (slot, branch) in [root, bob, bobRequest].enumerated() {
            let value = branch[Pair.self]
            if !value.isConsistent { problems.append("torn: \(value)") }
            if value.number < last[slot] { problems.append("went back: \(value.number) after \(last[slot])") }
            last[slot] = value.number
          }
          for branch in [ann, annRequest] where !branch[Pair.self].isConsistent {
            problems.append("torn: \(branch[Pair.self])")
          }
          let locale = annRequest[GreetingLocale.self]
          if locale != "en", !locale.hasPrefix("locale ") { problems.append("locale: \(locale)") }
        } while !done.isRaised
      }
    }
    #expect(problems.all.isEmpty)
    let last = Pair.Value(number: Self.sets, text: "\(Self.sets)")
    for branch in [root, ann, bob, annRequest, bobRequest] { #expect(branch[Pair.self] == last) }
    #expect(annRequest[GreetingLocale.self] == "locale \(Self.sets)")
    #expect(bobRequest[GreetingLocale.self] == "en")
  }

  @Test func branchesComeAndGoWhileSetsAndObserversRun() async throws {
    let root = Self.root()
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let observed = ann.observe(Pair.self)
    let problems = Collected<String>()
    let done = Flag()
    await onDedicatedThreads(4) { index in
      switch index {
      case 0:
        for number in 1...Self.sets { root[Pair.self] = Pair.Value(number: number, text: "\(number)") }
        done.raise()
      default:
        // Short-lived branches: made, read, observed, set, dropped, racing the root's sets.
        var count = 0
        repeat {
          do {
            let request = try ann.branch(RequestScope.self, context: count)
            let stream = request.observe(Pair.self)
            if !request[Pair.self].isConsistent { problems.append("torn: \(request[Pair.self])") }
            if count % 3 == 0 { request[Pair.self] = Pair.Value(number: -count, text: "\(-count)") }
            _ = stream
          } catch {
            problems.append("\(error)")
          }
          count += 1
        } while !done.isRaised
      }
    }
    #expect(problems.all.isEmpty)
    // The session's observer saw every set of the root, in order.
    var expected = 0
    for await value in observed {
      #expect(value.number == expected)
      if value.number == Self.sets { break }
      expected += 1
    }
    #expect(expected == Self.sets)
  }

  @Test func firstReadsOfManyBranchesAtOnceAgree() async throws {
    let root = Self.root()
    root[GreetingLocale.self] = "fr"
    let sessions = try (0..<8).map { try root.branch(SessionScope.self, context: Session(user: "\($0)")) }
    let read = Collected<String>()
    await onDedicatedThreads(8) { index in
      for session in sessions { read.append(session[GreetingLocale.self]) }
      _ = index
    }
    #expect(read.all == Array(repeating: "fr", count: 64))
  }
}

/// Runs `body` on `count` dedicated threads and suspends, without blocking a thread of the
/// cooperative pool, until all of them end: the readers and writers here run for seconds under the
/// thread sanitizer, and other suites' async tests must keep the pool meanwhile.
func onDedicatedThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
    Thread {
      onThreads(count, body)
      finished.resume()
    }.start()
  }
}
