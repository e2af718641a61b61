import Arbor
import ArborDemoFeatures
import Foundation
import Testing

/// Requests that wait for a load that fails are all woken with the failure, even when the emptied
/// slot is claimed again at once and waited for under the same key.
@Suite struct FailedLoadWaitersTests {
  struct AlwaysFails: CacheableFeature {
    static var placeholder: AlwaysFails { AlwaysFails() }
  }

  @Test func waitersOfAFailedLoadReclaimedAtOnceAreAllWoken() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ -> AlwaysFails in
            usleep(20)
            throw Boom()
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let finished = Tally()
    let failures = Tally()
    let threads = 8
    // Under the thread sanitizer a failed load costs about ten times as much: in CI, 2,000 a thread
    // took 52 s and once more than the 60 s allowed. 300 still make thousands of reclaims race.
    let loads = runsUnderThreadSanitizer ? 300 : 2000
    for _ in 0..<threads {
      Thread {
        for _ in 0..<loads {
          do {
            _ = try session.instance(of: AlwaysFails.self)
          } catch is FeatureLoadingFailed {
            failures.next()
          } catch {
            Issue.record(error)
          }
        }
        finished.next()
      }.start()
    }
    // Before the fix, a waiter whose InFlight record was replaced by the next load's slept forever:
    // the test fails once no load has ended for 30 s (counted in sleeps, which a busy machine only
    // lengthens), however long the loads take in all. Suspended, not blocked: the cooperative
    // pool's threads stay free for the other tests.
    var seen = -1
    var idle = 0
    while finished.value < threads, idle < 3_000 {
      try await Task.sleep(for: .milliseconds(10))
      let progress = failures.value + finished.value
      if progress != seen { (seen, idle) = (progress, 0) } else { idle += 1 }
    }
    #expect(finished.value == threads, "\(threads - finished.value) threads blocked, no load ended for 30 s")
    #expect(failures.value == threads * loads)
  }

  /// Two sessions made before anything loads, so that neither has room for a unit: their first
  /// loads (of two features) give out the scope's two units together, each while the other's load
  /// is in flight. Every branch then keeps, in each unit, the one instance loaded for it.
  @Test func concurrentFirstLoadsOfOneScopeGiveOutTheirUnitsWithoutARace() throws {
    for _ in 0..<20 {
      let loads = Tally()
      let bothRacing = Flag()
      /// The number of this loader run; the first run holds until the second has started.
      @Sendable func nextLoad() -> Int {
        let load = loads.next()
        if load == 2 { bothRacing.raise() }
        if load == 1 { #expect(bothRacing.wait(), "the two first loads did not run at the same time") }
        return load
      }
      let root = FeaturesRoot { registry in
        registry.defineScope(SessionScope.self) { registry in
          registry.use(.cacheable { _ in Counter(name: "live", serial: nextLoad()) })
          registry.use(.cacheable { _ in Other(serial: nextLoad()) })
        }
      }
      let sessions = try (0..<2).map { try root.branch(SessionScope.self, context: Session(user: "\($0)")) }
      let raced = Collected<(session: Int, serial: Int)>()
      onThreads(2) { index in
        do {
          let serial =
            index == 0
            ? try sessions[0].instance(of: Counter.self).serial : try sessions[1].instance(of: Other.self).serial
          raced.append((index, serial))
        } catch {
          Issue.record(error)
        }
      }
      // Each racer got the instance its own loader run made.
      let racedSerials = raced.all.sorted { $0.session < $1.session }.map(\.serial)
      try #require(racedSerials.count == 2)
      #expect(Set(racedSerials) == [1, 2])
      // Units given out by the racing first loads serve the branches made later, and the racers':
      // each branch loads each feature once and keeps its own instance.
      let later = try root.branch(SessionScope.self, context: Session(user: "later"))
      #expect(try later.instance(of: Counter.self).serial == 3)
      #expect(try later.instance(of: Other.self).serial == 4)
      #expect(try sessions[0].instance(of: Other.self).serial == 5)
      #expect(try sessions[1].instance(of: Counter.self).serial == 6)
      for _ in 0..<2 {
        #expect(try sessions[0].instance(of: Counter.self).serial == racedSerials[0])
        #expect(try sessions[1].instance(of: Other.self).serial == racedSerials[1])
        #expect(try later.instance(of: Counter.self).serial == 3)
        #expect(try later.instance(of: Other.self).serial == 4)
        #expect(try sessions[0].instance(of: Other.self).serial == 5)
        #expect(try sessions[1].instance(of: Counter.self).serial == 6)
      }
      #expect(loads.value == 6)
    }
  }
}
