import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Foundation
import Testing

@Suite struct ExactlyOnceTests {
  @Test func concurrentFirstRequestsRunTheLoaderOnce() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          usleep(2_000)  // keep the load in flight while the other threads arrive
          return Counter(name: "slow", serial: loads.next())
        })
    }
    let serials = Collected<Int>()
    onThreads(8) { _ in serials.append((try? root.instance(of: Counter.self).serial) ?? -1) }
    #expect(serials.all == Array(repeating: 1, count: 8))
    #expect(loads.value == 1)
  }

  @Test func stressEveryLoaderRunsOncePerBranchAndContext() throws {
    let counterLoads = Tally()
    let accountLoads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: counterLoads.next()) })
        registry.use(.cacheable { (id: Int, _) in Account(id: id, serial: accountLoads.next()) })
      }
    }
    let shared = try root.branch(SessionScope.self, context: Session(user: "shared"))
    let threads = 8
    let iterations = 2_000
    let mismatches = Tally()
    onThreads(threads) { thread in
      let expected = try? shared.instance(of: Counter.self).serial
      for _ in 0..<iterations where (try? shared.instance(of: Counter.self).serial) != expected {
        mismatches.next()
      }
      for iteration in 0..<iterations {
        let fresh = try? root.branch(SessionScope.self, context: Session(user: "\(thread)-\(iteration)"))
        let first = try? fresh?.instance(of: Counter.self).serial
        let second = try? fresh?.instance(of: Counter.self).serial
        let account = try? fresh?.instance(of: Account.self, context: iteration % 3)
        let again = try? fresh?.instance(of: Account.self, context: iteration % 3)
        if first == nil || first != second || account?.serial != again?.serial { mismatches.next() }
        if let shared = try? shared.instance(of: Counter.self), shared.serial != expected { mismatches.next() }
      }
    }
    #expect(mismatches.value == 0)
    #expect(shared.invariantViolations() == [])
    // One Counter for the shared branch, one per fresh branch; one Account per fresh branch and context.
    #expect(counterLoads.value == 1 + threads * iterations)
    #expect(accountLoads.value == threads * iterations)
  }

  @Test func concurrentRequestsInOneBranchLoadEachContextOnce() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, _) in
          usleep(500)
          return Account(id: id, serial: loads.next())
        })
    }
    let seen = Collected<[Int]>()
    onThreads(8) { _ in
      seen.append((0..<10).map { id in (try? root.instance(of: Account.self, context: id).serial) ?? -1 })
    }
    #expect(Set(seen.all).count == 1)
    #expect(loads.value == 10)
  }

  @Test func differentCacheablesLoadAtTheSameTime() throws {
    // Each loader waits until the other has started: if loading held one lock for the whole tree
    // (or the branch), the second loader could not start and the first would time out.
    let counterStarted = Flag()
    let otherStarted = Flag()
    let timedOut = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          counterStarted.raise()
          if !otherStarted.wait() { timedOut.next() }
          return Counter(name: "counter", serial: 1)
        })
      registry.use(
        .cacheable { _ in
          otherStarted.raise()
          if !counterStarted.wait() { timedOut.next() }
          return Other(serial: 1)
        })
    }
    onThreads(2) { index in
      if index == 0 { _ = try? root.instance(of: Counter.self) } else { _ = try? root.instance(of: Other.self) }
    }
    #expect(timedOut.value == 0)
  }

  @Test func aLoaderThatResolvesOtherFeaturesNeverDeadlocksWithAnotherRequestOfTheSameFeature() throws {
    let outerStarted = Flag()
    let otherWaits = Flag()
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Other(serial: 7) })
      registry.use(
        .cacheable { features in
          outerStarted.raise()
          if blockUntil({ features.waits.requestsForLoads == 1 }) { otherWaits.raise() }
          let other: Other = try features.instance()
          return Counter(name: "outer", serial: other.serial)
        })
    }
    let results = Collected<Int>()
    onThreads(2) { index in
      if index == 1 { _ = outerStarted.wait() }
      results.append((try? root.instance(of: Counter.self).serial) ?? -1)
    }
    #expect(otherWaits.isRaised)  // the other thread waited for this load
    #expect(results.all == [7, 7])
  }

  @Test func waitersGetTheFailureOfTheLoadTheyWaitedForAndTheNextRequestTriesAgain() throws {
    let attempts = Tally()
    let started = Flag()
    let secondWaits = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { features in
          if attempts.next() == 1 {
            started.raise()
            // Fails only once the second request waits for this load: a library whose waiter tried
            // again itself would then load twice.
            if blockUntil({ features.waits.requestsForLoads == 1 }) { secondWaits.raise() }
            throw Boom()
          }
          return Counter(name: "second try", serial: 2)
        })
    }
    let failures = Tally()
    onThreads(2) { index in
      if index == 1 { _ = started.wait() }
      do { _ = try root.instance(of: Counter.self) } catch is FeatureLoadingFailed { failures.next() } catch {}
    }
    #expect(secondWaits.isRaised)
    #expect(attempts.value == 1)
    #expect(failures.value == 2)
    #expect(try root.instance(of: Counter.self).name == "second try")
  }
}
