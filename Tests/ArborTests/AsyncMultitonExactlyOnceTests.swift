import Arbor
import ArborDiagnostics
import ArborTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// Async multitons requested with `await` and synchronously at once: each context loads once, and
/// the first instance of a context is the one every later request gets.
@Suite(.serialized) struct AsyncMultitonExactlyOnceTests {
  // Rounds one after another: each keeps two threads busy.
  @Test(arguments: 0..<5)
  func syncRequestsRacingAsyncLoadsNeverLoadAContextTwiceNorReplaceItsInstance(round: Int) async throws {
    let contexts = 400
    let loads = Lock<[Int: Int]>.make([:])
    let serials = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, _: Features) async throws -> Account in
          loads.withLock { $0[id, default: 0] += 1 }
          await Task.yield()
          return Account(id: id, serial: serials.next())
        })
    }
    let stop = Flag()
    // Two threads hammer the same contexts synchronously: they may only be told to await, or get
    // the instance the async path published.
    let syncSeen = Lock<[Int: Set<Int>]>.make([:])
    let threads = DispatchGroup()
    for _ in 0..<2 {
      threads.enter()
      // Dedicated threads: blocks spinning on Dispatch's global queue would take the threads the
      // tasks below run on.
      Thread {
        defer { threads.leave() }
        repeat {
          usleep(200)  // two busy threads per round, not more: leave the other tests room
          for id in 0..<contexts {
            if let account = try? root.instance(of: Account.self, context: id) {
              syncSeen.withLock { _ = $0[id, default: []].insert(account.serial) }
            }
          }
        } while !stop.isRaised
      }.start()
    }
    let first = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      for id in 0..<contexts {
        group.addTask { (id, try await root.instance(of: Account.self, context: id).serial) }
      }
      var serials: [Int: Int] = [:]
      for try await (id, serial) in group { serials[id] = serial }
      return serials
    }
    stop.raise()
    await withCheckedContinuation { continuation in threads.notify(queue: .global()) { continuation.resume() } }

    #expect(loads.withLock { $0.values.filter { $0 != 1 }.count } == 0)
    #expect(loads.withLock { $0.count } == contexts)
    #expect(root.invariantViolations() == [])  // the multiton's table holds every context
    for id in 0..<contexts {
      let later = try await root.instance(of: Account.self, context: id).serial
      #expect(later == first[id])
      #expect(try synchronously { try root.instance(of: Account.self, context: id) }.serial == first[id])
      #expect(syncSeen.withLock { $0[id] ?? [] }.isSubset(of: [first[id]!]))
    }
  }

  @Test func aSyncRequestForAnAsyncMultitonNotYetLoadedIsToldToAwaitAndClaimsNothing() async throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, _: Features) async throws -> Account in
          Account(id: id, serial: loads.next())
        })
    }
    #expect(throws: FeatureRequiresAwait.self) { try synchronously { try root.instance(of: Account.self, context: 3) } }
    let loaded = try await root.instance(of: Account.self, context: 3)
    #expect(try synchronously { try root.instance(of: Account.self, context: 3) }.serial == loaded.serial)
    #expect(loads.value == 1)
  }
}
