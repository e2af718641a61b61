/// A features tree as a graph: every registration of every defined scope, and every request a
/// loader made during validation, with scopes as nested clusters.
///
/// Rendered as Mermaid (GitHub shows it), Graphviz DOT, or JSON for tools.
///
/// ```swift
/// let graph = await root.validate().graph
/// print(graph.mermaid())
/// ```
public struct FeaturesGraph: Sendable, Hashable {
  /// A defined scope: a cluster of the graph.
  package struct Scope: Sendable, Hashable {
    /// `s0`, `s1`, ...: the cluster's identifier in every rendering.
    package let id: String
    /// The scope and those above it, root first: `["Root", "SessionScope"]`.
    package let path: [String]
    /// The cluster this one is nested in; `nil` for the root.
    package let parent: String?
  }

  /// A registration, or a feature requested but registered nowhere on the requester's path.
  public struct Node: Sendable, Hashable {
    /// `n0`, `n1`, ... for registrations; `u0`, `u1`, ... for undefined features.
    public let id: String
    /// The feature's name: `Greeter`.
    public let feature: String
    /// How its instances live; `nil` for an undefined feature.
    public let kind: Features.Which.Kind?
    /// Whether its loader is `async`.
    public let isAsync: Bool
    /// Whether its loader and teardown run on the main actor.
    public let runsOnMainActor: Bool
    /// The implementation's name (`Greeter.live()`); `nil` for an undefined feature.
    public let implementation: String?
    /// Where it is registered; `nil` for an undefined feature.
    public let location: SourceLocation?
    /// The cluster of the scope that registers it; `nil` for an undefined feature.
    public let scope: String?
    /// How long a cached instance serves before the first request that finds it older renews it:
    /// the `timeToLive:` of a cacheable's loader; `nil` without one.
    public let timeToLive: Duration?
  }

  /// A request a loader made: from its registration to what serves the request.
  package struct Edge: Sendable, Hashable {
    /// The requesting registration's node.
    package let from: String
    /// The node of what serves the request.
    package let to: String
    /// Where the loader makes the request.
    package let location: SourceLocation
    /// What is wrong with the request, if anything: `undefined` or `cycle`.
    package let problem: String?
  }

  /// Every defined scope, each after the one it is nested in.
  package let scopes: [Scope]
  /// Every registration, then every undefined feature.
  public let nodes: [Node]
  /// Every request, in the order the loaders made them.
  package let edges: [Edge]
}
