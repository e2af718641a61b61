/// A ready ``FeaturesObserver`` that keeps every load, start and renewal: a startup profile as a
/// text tree, and a Chrome trace that Perfetto (ui.perfetto.dev) opens. Safe under concurrent loads.
///
/// ```swift
/// let profile = LoadProfile()
/// let root = FeaturesRoot(observer: profile) { registry in ... }
/// _ = try await root.instance(of: Server.self)
/// print(profile.report())      // every load as a tree by who requested it, the slowest first
/// try profile.chromeTrace().write(to: traceFile, atomically: true, encoding: .utf8)
/// ```
public final class LoadProfile: FeaturesObserver, @unchecked Sendable {
  // Sendable: all state is in `state`, a lock.
  private let state = Lock<State>.make(State())

  private struct State {
    var loads: [LoadEvent] = []
    var starts: [StartEvent] = []
    var renewals: [RenewalEvent] = []
  }

  /// An empty profile.
  public init() {}

  /// Keeps `load`.
  public func loaded(_ load: LoadEvent) {
    state.withLock { $0.loads.append(load) }
  }

  /// Keeps `start`.
  public func started(_ start: StartEvent) {
    state.withLock { $0.starts.append(start) }
  }

  /// Keeps `renewal`.
  public func renewed(_ renewal: RenewalEvent) {
    state.withLock { $0.renewals.append(renewal) }
  }

  /// Every load so far, in the order they ended.
  public var loads: [LoadEvent] { state.withLock { $0.loads } }

  /// Every start so far, in the order they ended.
  public var starts: [StartEvent] { state.withLock { $0.starts } }

  /// Every renewal so far (``Features/refresh(_:context:file:line:)`` or an expired instance), in
  /// the order they ended.
  public var renewals: [RenewalEvent] { state.withLock { $0.renewals } }

  /// The loads as a tree by who requested them, each with its implementation, branch and
  /// duration (its own requests included), siblings slowest first.
  ///
  /// ```
  /// 3 loads, 12.40 ms at the top
  /// ├─ Greeter.live() in Root › SessionScope(Session(user: "ann")): 12.10 ms
  /// │  └─ Printer.console() in Root › SessionScope(Session(user: "ann")): 2.02 ms
  /// └─ Clock.live() in Root: 0.30 ms
  /// ```
  ///
  /// A start (``Features/start(timeout:file:line:isolation:)``) comes first, as one tree: each
  /// step in the order it began, with the loads each eager feature waited for below it.
  ///
  /// ```
  /// start-up of Root: 25.10 ms
  /// ├─ Database.live(): 20.02 ms
  /// │  └─ Config.live() in Root: 1.20 ms
  /// └─ before serving (App/Main.swift:12): 5.01 ms
  /// ```
  ///
  /// Renewals come last, in the order they ended: what caused each, how long its teardowns took, and
  /// what it renewed, dependents first. The loads that replaced them are among the loads above.
  ///
  /// ```
  /// a refresh at App/Session.swift:40 renewed 2 instances: 0.40 ms
  /// ├─ ApiClient (ApiClient.live()) in Root › SessionScope(Session(user: "ann"))
  /// └─ AuthToken (AuthToken.live()) in Root › SessionScope(Session(user: "ann"))
  /// ```
  public func report() -> String {
    let forest = LoadForest(loads)
    let total = forest.roots.reduce(Duration.zero) { $0 + forest.loads[$1].duration }
    var lines: [String] = []
    for start in starts {
      let outcome = start.failure.map { ", failed: \($0.summary())" } ?? ""
      lines.append(
        "start-up of \(Diagnostic.render(scope: start.scope, style: .unicode)): \(milliseconds(start.duration))\(outcome)"
      )
      for (position, step) in start.steps.enumerated() {
        let isLast = position == start.steps.count - 1
        let failure = step.failure.map { ", failed: \($0.summary())" } ?? ""
        lines.append((isLast ? "└─ " : "├─ ") + "\(step.name): \(milliseconds(step.duration))\(failure)")
        // The eager load itself: a load of its feature that began in the step, requested by no other.
        let load = forest.roots.first { root in
          let load = forest.loads[root]
          return load.feature == step.feature && load.start >= step.start && load.start <= step.start + step.duration
        }
        guard let load else { continue }
        let children = forest.children[load]
        for (index, child) in children.enumerated() {
          forest.emit(child, prefix: isLast ? "   " : "│  ", isLast: index == children.count - 1, into: &lines)
        }
      }
    }
    lines.append(
      "\(forest.loads.count) \(forest.loads.count == 1 ? "load" : "loads"), \(milliseconds(total)) at the top")
    for (position, root) in forest.roots.enumerated() {
      forest.emit(root, prefix: "", isLast: position == forest.roots.count - 1, into: &lines)
    }
    for renewal in renewals {
      let failures =
        switch renewal.failures {
        case 0: ""
        case 1: ", 1 teardown failed"
        default: ", \(renewal.failures) teardowns failed"
        }
      lines.append("\(renewal.headline): \(milliseconds(renewal.duration))\(failures)")
      for (position, renewed) in renewal.renewed.enumerated() {
        lines.append((position == renewal.renewed.count - 1 ? "└─ " : "├─ ") + renewed.description)
      }
    }
    return lines.joined(separator: "\n")
  }

  /// The loads and renewals as Chrome trace-event JSON (complete events, microseconds from the
  /// first); each tree of loads has a track of its own, so nested loads nest, and renewals share
  /// one track after them (category `renewal`, with what each renewed in its `args`).
  public func chromeTrace() -> String {
    let forest = LoadForest(loads)
    let renewals = renewals
    guard let origin = (forest.loads.map(\.start) + renewals.map(\.start)).min() else {
      return JSONValue.object([("traceEvents", .array([]))]).text(pretty: false)
    }
    var events: [JSONValue] = []
    func emit(_ index: Int, track: Int) {
      let load = forest.loads[index]
      events.append(
        .object([
          ("name", .string(load.implementation)), ("cat", .string(load.category)),
          ("ph", .string("X")), ("ts", .number(microseconds(load.start - origin))),
          ("dur", .number(max(1, microseconds(load.duration)))), ("pid", .number(1)), ("tid", .number(track)),
          (
            "args",
            .object([
              ("feature", .string(load.feature)),
              ("scope", .string(Diagnostic.render(scope: load.scope, style: .ascii))),
              ("failure", load.failure.map { .string($0.summary()) } ?? .null),
            ])
          ),
        ]))
      for child in forest.children[index] { emit(child, track: track) }
    }
    for (track, root) in forest.roots.enumerated() { emit(root, track: track + 1) }
    for renewal in renewals {
      events.append(
        .object([
          ("name", .string(renewal.headline)), ("cat", .string("renewal")), ("ph", .string("X")),
          ("ts", .number(microseconds(renewal.start - origin))),
          ("dur", .number(max(1, microseconds(renewal.duration)))), ("pid", .number(1)),
          ("tid", .number(forest.roots.count + 1)),
          (
            "args",
            .object([
              ("renewed", .array(renewal.renewed.map { .string($0.description) })),
              ("failures", .number(renewal.failures)),
            ])
          ),
        ]))
    }
    return JSONValue.object([("traceEvents", .array(events)), ("displayTimeUnit", .string("ms"))]).text(pretty: false)
  }
}

/// Loads arranged by who requested them: a load's parent is the latest load of the feature its
/// path says requested it that began before it and ended after it.
private struct LoadForest {
  let loads: [LoadEvent]
  /// The loads nobody observed requesting, slowest first.
  private(set) var roots: [Int] = []
  /// Each load's requests, slowest first.
  private(set) var children: [[Int]]

  /// Appends the line of the load at `index`, then its requests' below it.
  func emit(_ index: Int, prefix: String, isLast: Bool, into lines: inout [String]) {
    let load = loads[index]
    let place = Diagnostic.render(scope: load.scope, style: .unicode)
    let outcome = load.failure.map { ", failed: \($0.summary())" } ?? ""
    lines.append(
      prefix + (isLast ? "└─ " : "├─ ")
        + "\(load.implementation) in \(place)\(load.runsOnMainActor ? " on the main actor" : ""): "
        + "\(milliseconds(load.duration))\(outcome)"
    )
    for (position, child) in children[index].enumerated() {
      emit(
        child, prefix: prefix + (isLast ? "   " : "│  "), isLast: position == children[index].count - 1, into: &lines)
    }
  }

  /// - Parameter loads: The loads in the order they ended: a load that ran all the while another
  ///   ran ended after it, whatever clock their durations were measured on.
  init(_ loads: [LoadEvent]) {
    let order = loads.indices.sorted { loads[$0].start < loads[$1].start }
    let byStart = order.map { loads[$0] }
    self.loads = byStart
    children = Array(repeating: [], count: byStart.count)
    for (index, load) in byStart.enumerated() {
      let requester = load.requesters.last.map { ObjectIdentifier($0.feature) }
      let parent = requester.flatMap { requester in
        byStart.indices[..<index].last { candidate in
          ObjectIdentifier(byStart[candidate].featureType) == requester && order[candidate] > order[index]
        }
      }
      if let parent { children[parent].append(index) } else { roots.append(index) }
    }
    let slowestFirst = { (lhs: Int, rhs: Int) in byStart[lhs].duration > byStart[rhs].duration }
    roots.sort(by: slowestFirst)
    for index in children.indices { children[index].sort(by: slowestFirst) }
  }
}

extension RenewalEvent {
  /// `a refresh at App/Session.swift:40 renewed 2 instances`, `an expiry renewed 1 instance`.
  fileprivate var headline: String {
    let cause =
      switch cause {
      case .refresh(let location): "a refresh at \(location)"
      case .expired: "an expiry"
      }
    return "\(cause) renewed \(renewed.count) \(renewed.count == 1 ? "instance" : "instances")"
  }
}

/// `12.40 ms`.
private func milliseconds(_ duration: Duration) -> String {
  let hundredths = (microseconds(duration) + 5) / 10
  let fraction = hundredths % 100
  return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
}

private func microseconds(_ duration: Duration) -> Int {
  let (seconds, attoseconds) = duration.components
  return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
}
