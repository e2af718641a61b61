import Arbor
import Synchronization

/// `renewal`: one credential with N per-account dependents (a cacheable with an `Int` context, each
/// loaded with the credential) cached in one branch, N = 1,000, 4,000 and 10,000; what
/// `refresh(Credential.self)` costs, which forgets and tears down the N dependents and the
/// credential, against closing a branch that holds the same N + 1 instances. Every teardown is
/// trivial, so the figures are Arbor's own work. Targets: renewing 10,000 dependents costs at most 3×
/// closing them, and the renewal grows linearly (10× the dependents, at most 12.5× the time).
enum RenewalCurve {
  static let sizes = [1_000, 4_000, 10_000]

  /// The credential every account client is built with.
  struct Credential: CacheableFeature {
    var token: Int
    static var placeholder: Credential { Credential(token: -1) }
  }

  /// A client of one account, built with the credential: one instance per account number.
  struct AccountClient: CacheableFeature {
    typealias Context = Int
    var account: Int
    var token: Int
    static var placeholder: AccountClient { AccountClient(account: -1, token: -1) }
  }

  enum AccountsScope: FeaturesScope { typealias Context = Void }

  /// Credentials issued and teardowns run, read by the verification only.
  final class Counters: Sendable {
    let issued = Atomic<Int>(0)
    let tornDown = Atomic<Int>(0)
  }

  static func run(_ settings: Settings) -> Curve {
    let counters = Counters()
    let root = FeaturesRoot { registry in
      registry.defineScope(AccountsScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Credential(token: counters.issued.add(1, ordering: .relaxed).newValue)
          } teardown: { _ in
            counters.tornDown.add(1, ordering: .relaxed)
          })
        registry.use(
          .cacheable { (account: Int, features) in
            AccountClient(account: account, token: try features.instance(of: Credential.self).token)
          } teardown: { _ in
            counters.tornDown.add(1, ordering: .relaxed)
          })
      }
    }
    // The same number of dependents renewed in every sample, so that the small sizes are not timed
    // on one short renewal.
    let batches = sizes.map { size in max(1, Int((Double(20_000 / size) * settings.scale).rounded())) }
    let samples = settings.samples
    let figures = runAsync {
      await verify(root, counters)
      return await measure(root, batches: batches, samples: samples)
    }
    var curve = Curve(id: "renewal")
    for (index, size) in sizes.enumerated() {
      curve.points.append(
        Curve.Point(
          label: "\(grouped(size)) dependents: `refresh` of their credential (µs)", unit: "µs",
          arbor: median(figures.renew[index])))
      curve.points.append(
        Curve.Point(
          label: "\(grouped(size)) dependents: close a branch holding the same (µs)", unit: "µs",
          arbor: median(figures.close[index])))
    }
    let last = sizes.count - 1
    for (index, size) in sizes.enumerated() {
      curve.ratios.append(
        Curve.Ratio(
          title: "renew ÷ close, \(grouped(size)) dependents",
          value: medianOfRatios(figures.renew[index], figures.close[index]),
          target: index == last ? .atMost(3) : nil))
    }
    curve.ratios.append(
      Curve.Ratio(
        title: "renew, \(grouped(sizes[last])) ÷ \(grouped(sizes[0])) dependents",
        value: medianOfRatios(figures.renew[last], figures.renew[0]), target: .atMost(12.5)))
    curve.ratios.append(
      Curve.Ratio(
        title: "close, \(grouped(sizes[last])) ÷ \(grouped(sizes[0])) dependents",
        value: medianOfRatios(figures.close[last], figures.close[0]), target: nil))
    return curve
  }

  /// A branch of the scope with its credential and `accounts` account clients loaded.
  static func loaded(_ root: Features, accounts: Int) -> Features {
    let branch = try! root.branch(AccountsScope.self)
    for account in 0..<accounts { blackHole(client(account, of: branch)) }
    return branch
  }

  /// The client of `account` in `branch`, requested synchronously: a function of its own, since in an
  /// async function `instance()` picks the async overload.
  static func client(_ account: Int, of branch: Features) -> AccountClient {
    try! branch.instance(of: AccountClient.self, context: account)
  }

  /// Checks that a refresh renews the credential and every account client, and a close tears down
  /// as many.
  static func verify(_ root: Features, _ counters: Counters) async {
    let branch = loaded(root, accounts: 3)
    let token = client(0, of: branch).token
    var tornDown = counters.tornDown.load(ordering: .relaxed)
    let renewed = try! await branch.refresh(Credential.self)
    expect(
      renewed.count == 4 && renewed.last?.feature == "\(Credential.self)",
      "renewal: refresh renews 3 clients, then the credential: \(renewed)")
    expect(counters.tornDown.load(ordering: .relaxed) - tornDown == 4, "renewal: refresh tears down 4")
    let renewedToken = client(0, of: branch).token
    expect(renewedToken != token, "renewal: a client after the refresh is built with a new credential")
    try! await branch.close()
    let closing = loaded(root, accounts: 3)
    tornDown = counters.tornDown.load(ordering: .relaxed)
    try! await closing.close()
    expect(counters.tornDown.load(ordering: .relaxed) - tornDown == 4, "renewal: close tears down 4")
  }

  /// Microseconds per renewal and per close, `[size][sample]`, each size's renewals and closes
  /// timed in turn; the branches are loaded before the clock starts.
  static func measure(_ root: Features, batches: [Int], samples: Int) async -> (renew: [[Double]], close: [[Double]]) {
    var renew = Array(repeating: [Double](), count: sizes.count)
    var close = Array(repeating: [Double](), count: sizes.count)
    for sample in 0...samples {  // sample 0 is the warm-up
      for (index, size) in sizes.enumerated() {
        let batch = batches[index]
        var branches = (0..<batch).map { _ in loaded(root, accounts: size) }
        var start = now()
        for branch in branches { blackHole(try! await branch.refresh(Credential.self)) }
        let renewal = Double(now() - start) / 1_000 / Double(batch)
        for branch in branches { try! await branch.close() }
        branches = (0..<batch).map { _ in loaded(root, accounts: size) }
        start = now()
        for branch in branches { try! await branch.close() }
        let closing = Double(now() - start) / 1_000 / Double(batch)
        if sample > 0 {
          renew[index].append(renewal)
          close[index].append(closing)
        }
      }
    }
    return (renew, close)
  }
}
