import Arbor

// The same feature types serve every library: structs of closures, as Arbor's design has them. The
// closures capture what they use, like real implementations do, so copying an instance retains its
// closure context in every library alike.

/// How many `Service`s and request features were made, so verification can check what was cached.
///
/// Plain memory, not an atomic, so counting costs every library the same and next to nothing: only
/// the single-threaded verification reads it, and the threads of case e only read cached instances.
nonisolated(unsafe) let made = UnsafeMutablePointer<Int>.allocate(capacity: 1)

/// Counts what `body` makes.
func making(_ body: () -> Void) -> Int {
  let before = made.pointee
  body()
  return made.pointee - before
}

/// Immutable state an implementation keeps: a client's configuration, say.
final class ServiceState: Sendable {
  let value: Int

  init(_ value: Int) {
    self.value = value
  }
}

/// The cached instance of cases a, a2, b and e.
struct Service: CacheableFeature {
  var value: @Sendable () -> Int

  static var placeholder: Service { Service(value: unimplemented("Service.value", placeholder: 0)) }

  static func make() -> Service {
    made.pointee += 1
    let state = ServiceState(42)
    return Service(value: { state.value })
  }
}

/// The cached instance of case e′: its closure captures nothing, so copying it touches no reference
/// count, and two threads resolving it share nothing but what the library itself writes.
struct Ticker: CacheableFeature {
  var tick: @Sendable () -> Int

  static var placeholder: Ticker { Ticker(tick: unimplemented("Ticker.tick", placeholder: 0)) }

  static func make() -> Ticker {
    Ticker(tick: { 7 })
  }
}

/// The disposable of case b: a new instance per request, using the cached `Service`.
struct Consumer: DisposableFeature {
  var value: @Sendable () -> Int

  static var placeholder: Consumer { Consumer(value: unimplemented("Consumer.value", placeholder: 0)) }

  static func make(_ service: Service) -> Consumer {
    Consumer(value: { service.value() + 1 })
  }
}

/// One link of case c's chain of ten disposables (`Link0` … `Link9`): each uses the next, the last
/// the cached `Service`, so that no link is a constant the optimiser could build once for the
/// hand-written chain. Ten concrete types, as an app has, rather than one generic type.
protocol ChainLink: DisposableFeature where Context == Void {
  var value: @Sendable () -> Int { get }
  init(value: @escaping @Sendable () -> Int)
}

extension ChainLink {
  static var placeholder: Self { Self(value: unimplemented("\(Self.self).value", placeholder: 0)) }

  static func make(_ next: some ChainLink) -> Self {
    Self(value: { next.value() + 1 })
  }

  static func last(_ service: Service) -> Self {
    Self(value: { service.value() - 42 })
  }
}

struct Link0: ChainLink { var value: @Sendable () -> Int }
struct Link1: ChainLink { var value: @Sendable () -> Int }
struct Link2: ChainLink { var value: @Sendable () -> Int }
struct Link3: ChainLink { var value: @Sendable () -> Int }
struct Link4: ChainLink { var value: @Sendable () -> Int }
struct Link5: ChainLink { var value: @Sendable () -> Int }
struct Link6: ChainLink { var value: @Sendable () -> Int }
struct Link7: ChainLink { var value: @Sendable () -> Int }
struct Link8: ChainLink { var value: @Sendable () -> Int }
struct Link9: ChainLink { var value: @Sendable () -> Int }

/// What a request branch of cases d and f is about.
struct RequestID: Hashable, Sendable {
  var value: Int
}

/// One of the five cacheables of a request (cases d and f, `Request0` … `Request4`); each captures
/// the request's ID.
protocol RequestScoped: CacheableFeature where Context == NoContext {
  var value: @Sendable () -> Int { get }
  init(value: @escaping @Sendable () -> Int)
}

extension RequestScoped {
  static var placeholder: Self { Self(value: unimplemented("\(Self.self).value", placeholder: 0)) }

  static func make(_ request: RequestID) -> Self {
    made.pointee += 1
    return Self(value: { request.value })
  }
}

struct Request0: RequestScoped { var value: @Sendable () -> Int }
struct Request1: RequestScoped { var value: @Sendable () -> Int }
struct Request2: RequestScoped { var value: @Sendable () -> Int }
struct Request3: RequestScoped { var value: @Sendable () -> Int }
struct Request4: RequestScoped { var value: @Sendable () -> Int }

/// The scopes of the Arbor tree: three levels for case a2, and a request scope for d and f.
enum Level1Scope: FeaturesScope {}
enum Level2Scope: FeaturesScope {}
enum Level3Scope: FeaturesScope {}
enum RequestScope: FeaturesScope { typealias Context = RequestID }
