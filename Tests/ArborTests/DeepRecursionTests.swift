import Arbor
import Foundation
import Testing

/// A disposable that recurses through its own context, thousands deep: it runs, and a request that
/// repeats one on the path is still a cycle, however deep.
@Suite(.timeLimit(.minutes(3))) struct DeepRecursionTests {
  struct Countdown: DisposableFeature {
    typealias Context = Int
    var steps: Int
    static var placeholder: Countdown { Countdown(steps: -1) }
  }

  /// A multiton that requests itself with another context.
  struct Account: CacheableFeature {
    typealias Context = Int
    var depth: Int
    static var placeholder: Account { Account(depth: -1) }
  }

  /// Runs `body` on a thread with room for a deep path (each link takes kilobytes of stack in a
  /// debug build).
  func onBigStack<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
    await onThread(stackSize: 256 << 20, body)
  }

  /// Runs `body` on a thread with a stack of `stackSize` bytes.
  func onThread<R: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> R) async -> R {
    // Awaited, not waited for: a test blocked on the thread would hold one of the few threads of
    // Swift's cooperative pool (two here) for as long as the recursion runs, which under the thread
    // sanitizer starves every other test running meanwhile.
    await withCheckedContinuation { continuation in
      let thread = Thread { continuation.resume(returning: body()) }
      thread.stackSize = stackSize
      thread.start()
    }
  }

  /// How deep the deep tests go: less under the thread sanitizer, which tracks only so many frames.
  static let depth = runsUnderThreadSanitizer ? 2_000 : 10_000

  @Test func aTenThousandDeepRecursionRunsInTimeThatGrowsWithItsDepth() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (remaining: Int, features) -> Countdown in
          remaining == 0
            ? Countdown(steps: 0)
            : Countdown(steps: try features.instance(of: Countdown.self, context: remaining - 1).steps + 1)
        })
    }
    let depth = Self.depth
    // The thread's own CPU time: neither the time the machine gave other threads nor the wait for
    // the test to resume on a busy cooperative pool counts.
    let (steps, elapsed) = await onBigStack { () -> (Int?, Duration) in
      let start = threadCPUTime()
      let steps = (try? root.instance(of: Countdown.self, context: depth))?.steps
      return (steps, threadCPUTime() - start)
    }
    #expect(steps == depth)
    // Each request once walked the whole path: 10,000 deep took over 40 s in a debug build. It
    // takes a fraction of a second now; the bound only has to tell linear from quadratic. Not under
    // the thread sanitizer, which slows each step many times over and, with the other tests on two
    // cores, by as much again from run to run (2,000 deep took 11.4 s in one CI run).
    if !runsUnderThreadSanitizer { #expect(elapsed < .seconds(10)) }
  }

  /// How deep the chain on a default stack goes: less under a sanitizer, whose frames are larger.
  static let defaultStackLinks = runsUnderAddressSanitizer ? 150 : runsUnderThreadSanitizer ? 250 : 1_000

  @Test func aThousandLinkMultitonChainRunsOnTheDefaultEightMebibyteStack() async throws {
    // Each link is a cacheable's first load, which records what its loader received for renewals.
    // On the 8 MiB stack of a main thread or a task's thread, a debug build once overflowed at
    // about 714 links (11.7 KB a link).
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (n: Int, features) -> Account in
          n == 0 ? Account(depth: 0) : Account(depth: try features.instance(of: Account.self, context: n - 1).depth + 1)
        })
    }
    let links = Self.defaultStackLinks
    let depths = await onThread(stackSize: 8 << 20) { () -> [Int] in
      [links, links / 2, 0].map { (try? root.instance(of: Account.self, context: $0))?.depth ?? -1 }
    }
    // The top, then links in the middle and at the bottom, which the chain cached.
    #expect(depths == [links, links / 2, 0])
  }

  @Test func aCycleDeepInALongPathIsFoundAndNamesTheRepeatedRequest() async throws {
    // `depth` counts down to 0, where it requests half of it again: on the path, that many links up.
    let depth = Self.depth
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (remaining: Int, features) -> Countdown in
          let next = remaining == 0 ? depth / 2 : remaining - 1
          return Countdown(steps: try features.instance(of: Countdown.self, context: next).steps + 1)
        })
    }
    let outcome = await onBigStack { () -> String in
      do {
        _ = try root.instance(of: Countdown.self, context: depth)
        return "no error"
      } catch let cycle as CircularDependency {
        return "\(cycle.path.count) \(cycle.diagnostic.message)"
      } catch {
        return "\(error)"
      }
    }
    #expect(outcome == "\(depth / 2 + 2) Countdown requires itself")
  }

  @Test func recursionAcrossTheShallowAndDeepPartsOfThePathFindsEveryRepeat() async throws {
    // Each depth requests the context of every earlier depth in a short loop: only a repeat of a
    // request on the path fails, wherever on the path (walked or indexed) it is.
    for repeated in [0, 3, 23, 24, 25, 40] {
      let root = FeaturesRoot { registry in
        registry.use(
          .disposable { (depth: Int, features) -> Countdown in
            if depth == 60 {
              return Countdown(steps: try features.instance(of: Countdown.self, context: repeated).steps)
            }
            return Countdown(steps: try features.instance(of: Countdown.self, context: depth + 1).steps + 1)
          })
      }
      #expect(throws: CircularDependency.self) { try root.instance(of: Countdown.self, context: 0) }
    }
  }
}

/// The CPU time the calling thread has used.
private func threadCPUTime() -> Duration {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}
