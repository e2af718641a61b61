import Arbor
@_spi(Integrations) import ArborServiceLifecycle
import Vapor

/// Branches a request scope for every request, with a context built from the request, hands the
/// branch to the handlers through `req.features`, and closes it when the handler's response is ready.
///
/// The branch is made from the root, from the branch `parent` picks for the request, or from the
/// caller's branch in a `KeyedBranches` of sessions, so a request resolves its own scope's features
/// first, then its parent's, up to the root. Unless `setsCurrentFeatures` is `false`, it is the
/// task's current features while the rest of the chain runs, so `Features.current()` and
/// `@Resolved` work in handlers too.
///
/// The branch is closed (its teardowns run, in order) when the rest of the chain returns or throws,
/// before the response is written, so a teardown that fails fails the request instead of passing
/// unseen. A response body that streams after the handler returns must not use the request's
/// features: resolve what it needs from the session or the root. An Arbor error thrown while
/// branching, by a handler or by a teardown is logged and answered as ``DiagnosticErrorMapping``
/// says; an `AbortError` a loader threw keeps its status and reason.
///
/// ```swift
/// app.middleware.use(FeaturesMiddleware(root: root, scope: RequestScope.self) { req in
///   RequestInfo(id: req.id, path: req.url.path)
/// })
/// app.get("hello") { req async throws -> String in
///   try await req.features.instance(of: Greeter.self).greet()
/// }
/// ```
public struct FeaturesMiddleware<Scope: FeaturesScope>: AsyncMiddleware {
  /// Runs the request with the branch its request branch is made from, and whether that is the
  /// sessions' parent because the request had no session key.
  let withParent: @Sendable (Request, (Features, _ keyless: Bool) async throws -> Response) async throws -> Response
  /// The context of a request's branch.
  let makeContext: @Sendable (Request) async throws -> Scope.Context
  /// How Arbor errors become responses and log entries.
  let errors: DiagnosticErrorMapping
  /// Whether the request's branch is the task's current features while the chain runs.
  let setsCurrentFeatures: Bool
  /// Where the middleware was made: where its request branches are requested.
  let site: SourceLocation

  init(
    errors: DiagnosticErrorMapping, setsCurrentFeatures: Bool, site: SourceLocation,
    context: @escaping @Sendable (Request) async throws -> Scope.Context,
    withParent:
      @escaping @Sendable (Request, (Features, _ keyless: Bool) async throws -> Response) async throws ->
      Response
  ) {
    self.withParent = withParent
    self.site = site
    self.makeContext = context
    self.errors = errors
    self.setsCurrentFeatures = setsCurrentFeatures
  }

  /// A middleware that branches `scope` for every request, with the context `context` builds.
  ///
  /// ```swift
  /// FeaturesMiddleware(root: root, scope: RequestScope.self) { req in
  ///   RequestInfo(id: req.id, path: req.url.path)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - root: The tree's root, the parent of every request branch unless `parent` says otherwise.
  ///   - scope: The scope of request branches; defined in the root or in the parent's scope.
  ///   - parent: The branch to make the request's branch from, or `nil` for `root`. An error it
  ///     throws fails the request: throw an `Abort` to answer with its status.
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - setsCurrentFeatures: Whether the request's branch is the task's current features while
  ///     the chain runs. Pass `false` when no handler reads `Features.current()` or `@Resolved`.
  ///   - file: Where the middleware is made; captured for you, and named by diagnostics.
  ///   - line: Where the middleware is made; captured for you.
  ///   - context: The context of the request's branch, built from the request.
  public init(
    root: Features, scope: Scope.Type, parent: (@Sendable (Request) async throws -> Features?)? = nil,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line,
    context: @escaping @Sendable (Request) async throws -> Scope.Context
  ) {
    self.init(
      errors: errors, setsCurrentFeatures: setsCurrentFeatures, site: SourceLocation(fileID: file, line: line),
      context: context
    ) { request, body in
      guard let parent else { return try await body(root, false) }
      return try await body(try await parent(request) ?? root, false)
    }
  }

  /// A middleware that branches `scope` for every request below the caller's branch in
  /// `sessions`, found by the key `key` reads from the request.
  ///
  /// The session branch is made on the caller's first request and kept across requests, as
  /// `sessions` says; it is not evicted while one of its requests runs.
  ///
  /// A `nil` key branches the request from the sessions' parent, as a signed-out request. Where the
  /// request scope is defined for session branches only, such a request cannot be branched: refuse
  /// it in `key` instead, with a 401, and `key` returns a `Key`, not a `Key?`. A middleware made with
  /// a `key` that can return `nil` where the parent cannot branch `scope` notes it as it is made: the
  /// `FeaturesService` of that tree then fails its validation at start-up with ``SessionKeyMissing``.
  ///
  /// ```swift
  /// let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: .seconds(900)) { (token: String) in
  ///   try await Session(user: accounts.user(for: token))
  /// }
  /// app.middleware.use(
  ///   FeaturesMiddleware(
  ///     sessions: sessions, scope: RequestScope.self,
  ///     key: { req in
  ///       guard let token = req.headers.bearerAuthorization?.token else { throw Abort(.unauthorized) }
  ///       return token
  ///     }
  ///   ) { req in RequestInfo(id: req.id, path: req.url.path) })
  /// ```
  ///
  /// - Parameters:
  ///   - sessions: The session branches, by key.
  ///   - scope: The scope of request branches; defined where a session branch can branch it.
  ///   - key: The caller's key, or `nil` to branch from the sessions' parent (signed out). Throw an
  ///     `Abort` to refuse the request (401 without a credential). A request without a key whose
  ///     scope the parent cannot branch fails with ``SessionKeyMissing``.
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - setsCurrentFeatures: Whether the request's branch is the task's current features while
  ///     the chain runs; `false` when no handler reads `Features.current()` or `@Resolved`.
  ///   - file: Where the middleware is made; captured for you, and named by diagnostics.
  ///   - line: Where the middleware is made; captured for you.
  ///   - context: The context of the request's branch.
  public init<Key: Hashable & Sendable, Keyed: FeaturesScope>(
    sessions: KeyedBranches<Key, Keyed>, scope: Scope.Type, key: @escaping @Sendable (Request) async throws -> Key?,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line,
    context: @escaping @Sendable (Request) async throws -> Scope.Context
  ) {
    let site = SourceLocation(fileID: file, line: line)
    // A nil key is served from the sessions' parent: where that cannot branch the scope, say so now.
    SessionKeyMissing.checkAtStartUp(Scope.self, from: sessions.parent, refusal: "throw Abort(.unauthorized)", at: site)
    self.init(errors: errors, setsCurrentFeatures: setsCurrentFeatures, site: site, context: context) {
      request, body in
      guard let key = try await key(request) else { return try await body(sessions.parent, true) }
      return try await sessions.withBranch(for: key) { try await body($0, false) }
    }
  }

  /// A middleware that branches `scope` for every request below the caller's branch in
  /// `sessions`, found by the key `key` reads from the request, which every request must have.
  ///
  /// `key` returns the caller's key, or throws to refuse the request: every request is branched
  /// below a session, so the request scope may be defined for session branches only.
  ///
  /// ```swift
  /// FeaturesMiddleware(
  ///   sessions: sessions, scope: RequestScope.self,
  ///   key: { req in
  ///     guard let token = req.headers.bearerAuthorization?.token else { throw Abort(.unauthorized) }
  ///     return token
  ///   }
  /// ) { req in RequestInfo(id: req.id, path: req.url.path) }
  /// ```
  ///
  /// - Parameters:
  ///   - sessions: The session branches, by key.
  ///   - scope: The scope of request branches; defined where a session branch can branch it.
  ///   - key: The caller's key. Throw an `Abort` to refuse the request (401 without a credential).
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - setsCurrentFeatures: Whether the request's branch is the task's current features while
  ///     the chain runs; `false` when no handler reads `Features.current()` or `@Resolved`.
  ///   - file: Where the middleware is made; captured for you, and named by diagnostics.
  ///   - line: Where the middleware is made; captured for you.
  ///   - context: The context of the request's branch.
  public init<Key: Hashable & Sendable, Keyed: FeaturesScope>(
    sessions: KeyedBranches<Key, Keyed>, scope: Scope.Type, key: @escaping @Sendable (Request) async throws -> Key,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line,
    context: @escaping @Sendable (Request) async throws -> Scope.Context
  ) {
    self.init(
      errors: errors, setsCurrentFeatures: setsCurrentFeatures, site: SourceLocation(fileID: file, line: line),
      context: context
    ) { request, body in
      let key = try await key(request)
      return try await sessions.withBranch(for: key) { try await body($0, false) }
    }
  }

  /// A middleware that branches `scope`, whose branches carry no context, for every request.
  ///
  /// ```swift
  /// app.middleware.use(FeaturesMiddleware(root: root, scope: RequestScope.self))
  /// ```
  ///
  /// - Parameters:
  ///   - root: The tree's root, the parent of every request branch unless `parent` says otherwise.
  ///   - scope: The scope of request branches.
  ///   - parent: The branch to make the request's branch from, or `nil` for `root`.
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - setsCurrentFeatures: Whether the request's branch is the task's current features while
  ///     the chain runs; `false` when no handler reads `Features.current()` or `@Resolved`.
  ///   - file: Where the middleware is made; captured for you, and named by diagnostics.
  ///   - line: Where the middleware is made; captured for you.
  public init(
    root: Features, scope: Scope.Type, parent: (@Sendable (Request) async throws -> Features?)? = nil,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line
  ) where Scope.Context == Void {
    self.init(
      root: root, scope: scope, parent: parent, errors: errors, setsCurrentFeatures: setsCurrentFeatures, file: file,
      line: line
    ) { _ in () }
  }

  /// Runs the request in one task, as the asynchronous `respond(to:chainingTo:)` does: the entry
  /// Vapor calls for a middleware.
  ///
  /// When the next responder is asynchronous itself, as a route's handler is when this is the
  /// group's last middleware, it runs in this task: Vapor's bridge would start a task of its own
  /// for it and wake this one when it ends, a task and two switches of executors a request.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - next: The rest of the chain.
  /// - Returns: The response, once the branch is closed.
  public func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
    let promise = request.eventLoop.makePromise(of: Response.self)
    promise.completeWithTask {
      guard let next = next as? any AsyncResponder else {
        return try await respond(to: request, chainingTo: AsyncBasicResponder { try await next.respond(to: $0).get() })
      }
      return try await respond(to: request, chainingTo: next)
    }
    return promise.futureResult
  }

  /// Branches the request's scope, runs the rest of the chain with the branch in `req.features`
  /// (and as the task's current features, unless told not to), closes the branch, and maps Arbor
  /// errors.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - next: The rest of the chain.
  /// - Returns: The response, or for an Arbor error the response ``DiagnosticErrorMapping`` makes.
  /// - Throws: Any other error of the chain as it is.
  public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
    do {
      return try await withParent(request) { parent, keyless in
        do {
          return try await parent.withBranch(
            Scope.self, context: try await makeContext(request), file: site.fileID, line: site.line
          ) { branch in
            request.storage[RequestFeaturesKey.self] = branch
            // The branch is closed when this returns: a late reader gets a clear error, not a closed branch.
            defer { request.storage[RequestFeaturesKey.self] = nil }
            guard setsCurrentFeatures else { return try await next.respond(to: request) }
            return try await branch.withCurrent { try await next.respond(to: request) }
          }
        } catch let undefined as FeaturesScopeUndefined
          where keyless && undefined.scope == Scope.self && undefined.diagnostic.location == site
        {
          throw SessionKeyMissing(undefined, refusal: "throw Abort(.unauthorized)", at: site)
        }
      }
    } catch let error as any DiagnosticError where !(error is any AbortError) {
      return errors.response(to: error, for: request)
    }
  }
}
