import Arbor
@_spi(Integrations) import ArborServiceLifecycle
import Hummingbird

/// Branches a request scope for every request, with a context built from the request, hands the
/// branch to the handlers through their request context, and closes it when the handler's response
/// is ready.
///
/// The branch is made from the root, from the branch `parent` picks for the request, or from the
/// caller's branch in a ``KeyedBranches`` of sessions, so a request resolves its own scope's
/// features first, then its parent's, up to the root. Unless `setsCurrentFeatures` is `false`, it
/// is the task's current features while the rest of the chain runs, so `Features.current()` and
/// `@Resolved` work in handlers too.
///
/// The branch is closed (its teardowns run, in order) when the rest of the chain returns or throws,
/// as `Features.withBranch` closes it: before the response is written, so a teardown that fails
/// (a transaction that does not commit) fails the request instead of passing unseen. A response
/// body that streams after the handler returns must not use the request's features: resolve what
/// it needs from the session or the root. An Arbor error thrown while branching, by a handler or by
/// a teardown is logged and answered as ``DiagnosticErrorMapping`` says.
///
/// ```swift
/// let router = Router(context: BasicFeaturesRequestContext.self)
/// router.add(middleware: FeaturesMiddleware(root: root, scope: RequestScope.self) { request, context in
///   RequestInfo(id: context.id, path: request.uri.path)
/// })
/// router.get("hello") { request, context in
///   let greeter: Greeter = try await context.instance()
///   return greeter.greet()
/// }
/// ```
public struct FeaturesMiddleware<Context: FeaturesRequestContext, Scope: FeaturesScope>: RouterMiddleware {
  /// What a request is: Hummingbird's request.
  public typealias Input = Request
  /// What a request gets: Hummingbird's response.
  public typealias Output = Response

  /// What the middleware does for a request: branch, run the rest of the chain, close, map errors.
  ///
  /// A closure made where the middleware is made, so that it is compiled for the app's own context
  /// and scope: Hummingbird calls ``handle(_:context:next:)`` through its protocol, where the
  /// middleware's types are generic.
  @usableFromInline let serve:
    @Sendable (Request, Context, _ next: (Request, Context) async throws -> Response) async throws -> Response

  /// A middleware that makes the request's branch below the branch `withParent` runs the request
  /// with (and says whether that is the sessions' parent because the request had no session key),
  /// with the context `makeContext` builds.
  @inlinable
  init(
    errors: DiagnosticErrorMapping, setsCurrentFeatures: Bool, site: SourceLocation,
    context makeContext: @escaping @Sendable (Request, Context) async throws -> Scope.Context,
    withParent:
      @escaping @Sendable (Request, Context, (Features, _ keyless: Bool) async throws -> Response) async throws ->
      Response
  ) {
    serve = { request, requestContext, next in
      do {
        return try await withParent(request, requestContext) { parent, keyless in
          do {
            return try await parent.withBranch(
              Scope.self, context: try await makeContext(request, requestContext), file: site.fileID, line: site.line
            ) { branch in
              var context = requestContext
              context.requestFeatures = RequestFeatures(branch)
              guard setsCurrentFeatures else { return try await next(request, context) }
              return try await branch.withCurrent { try await next(request, context) }
            }
          } catch let undefined as FeaturesScopeUndefined
            where keyless && undefined.scope == Scope.self && undefined.diagnostic.location == site
          {
            throw SessionKeyMissing(undefined, refusal: "throw HTTPError(.unauthorized)", at: site)
          }
        }
      } catch let error as any DiagnosticError where !(error is any HTTPResponseError) {
        throw errors.map(error, logger: requestContext.logger)
      }
    }
  }

  /// A middleware that branches `scope` for every request, with the context `context` builds.
  ///
  /// ```swift
  /// FeaturesMiddleware(root: root, scope: RequestScope.self) { request, context in
  ///   RequestInfo(id: context.id, path: request.uri.path)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - root: The tree's root, the parent of every request branch unless `parent` says otherwise.
  ///   - scope: The scope of request branches; defined in the root or in the parent's scope.
  ///   - parent: The branch to make the request's branch from, or `nil` for `root`. An error it
  ///     throws fails the request: throw an `HTTPError` to answer with its status.
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - setsCurrentFeatures: Whether the request's branch is the task's current features while
  ///     the chain runs. Pass `false` when no handler reads `Features.current()` or `@Resolved`:
  ///     a request then sets no task-local value, and the loads it makes set none either.
  ///   - file: Where the middleware is made; captured for you, and named by diagnostics.
  ///   - line: Where the middleware is made; captured for you.
  ///   - context: The context of the request's branch, built from the request and Hummingbird's
  ///     context (its request id, its logger).
  @inlinable
  public init(
    root: Features, scope: Scope.Type,
    parent: (@Sendable (Request, Context) async throws -> Features?)? = nil,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line,
    context: @escaping @Sendable (Request, Context) async throws -> Scope.Context
  ) {
    let site = SourceLocation(fileID: file, line: line)
    if let parent {
      self.init(errors: errors, setsCurrentFeatures: setsCurrentFeatures, site: site, context: context) {
        request, requestContext, body in
        try await body(try await parent(request, requestContext) ?? root, false)
      }
    } else {
      self.init(errors: errors, setsCurrentFeatures: setsCurrentFeatures, site: site, context: context) {
        _, _, body in
        try await body(root, false)
      }
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
  /// api.add(
  ///   middleware: FeaturesMiddleware(
  ///     sessions: sessions, scope: RequestScope.self,
  ///     key: { request, _ in
  ///       guard let token = request.headers[.authorization] else { throw HTTPError(.unauthorized) }
  ///       return token
  ///     }
  ///   ) { request, context in RequestInfo(id: context.id, path: request.uri.path) })
  /// ```
  ///
  /// - Parameters:
  ///   - sessions: The session branches, by key.
  ///   - scope: The scope of request branches; defined where a session branch can branch it.
  ///   - key: The caller's key, or `nil` to branch from the sessions' parent (signed out). Throw an
  ///     `HTTPError` to refuse the request (401 without a credential). A request without a key
  ///     whose scope the parent cannot branch fails with ``SessionKeyMissing``.
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - setsCurrentFeatures: Whether the request's branch is the task's current features while
  ///     the chain runs; `false` when no handler reads `Features.current()` or `@Resolved`.
  ///   - file: Where the middleware is made; captured for you, and named by diagnostics.
  ///   - line: Where the middleware is made; captured for you.
  ///   - context: The context of the request's branch.
  @inlinable
  public init<Key: Hashable & Sendable, Keyed: FeaturesScope>(
    sessions: KeyedBranches<Key, Keyed>, scope: Scope.Type,
    key: @escaping @Sendable (Request, Context) async throws -> Key?,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line,
    context: @escaping @Sendable (Request, Context) async throws -> Scope.Context
  ) {
    let site = SourceLocation(fileID: file, line: line)
    Self.checkKeylessRequests(from: sessions.parent, at: site)
    self.init(errors: errors, setsCurrentFeatures: setsCurrentFeatures, site: site, context: context) {
      request, requestContext, body in
      guard let key = try await key(request, requestContext) else { return try await body(sessions.parent, true) }
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
  ///   key: { request, _ in
  ///     guard let token = request.headers[.authorization] else { throw HTTPError(.unauthorized) }
  ///     return token
  ///   }
  /// ) { request, context in RequestInfo(id: context.id, path: request.uri.path) }
  /// ```
  ///
  /// - Parameters:
  ///   - sessions: The session branches, by key.
  ///   - scope: The scope of request branches; defined where a session branch can branch it.
  ///   - key: The caller's key. Throw an `HTTPError` to refuse the request (401 without a credential).
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - setsCurrentFeatures: Whether the request's branch is the task's current features while
  ///     the chain runs; `false` when no handler reads `Features.current()` or `@Resolved`.
  ///   - file: Where the middleware is made; captured for you, and named by diagnostics.
  ///   - line: Where the middleware is made; captured for you.
  ///   - context: The context of the request's branch.
  @inlinable
  public init<Key: Hashable & Sendable, Keyed: FeaturesScope>(
    sessions: KeyedBranches<Key, Keyed>, scope: Scope.Type,
    key: @escaping @Sendable (Request, Context) async throws -> Key,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line,
    context: @escaping @Sendable (Request, Context) async throws -> Scope.Context
  ) {
    self.init(
      errors: errors, setsCurrentFeatures: setsCurrentFeatures, site: SourceLocation(fileID: file, line: line),
      context: context
    ) { request, requestContext, body in
      let key = try await key(request, requestContext)
      return try await sessions.withBranch(for: key) { try await body($0, false) }
    }
  }

  /// A middleware that branches `scope`, whose branches carry no context, for every request.
  ///
  /// ```swift
  /// router.add(middleware: FeaturesMiddleware(root: root, scope: RequestScope.self))
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
  @inlinable
  public init(
    root: Features, scope: Scope.Type,
    parent: (@Sendable (Request, Context) async throws -> Features?)? = nil,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(), setsCurrentFeatures: Bool = true,
    file: StaticString = #fileID, line: UInt = #line
  ) where Scope.Context == Void {
    self.init(
      root: root, scope: scope, parent: parent, errors: errors, setsCurrentFeatures: setsCurrentFeatures, file: file,
      line: line
    ) { _, _ in () }
  }

  /// Branches the request's scope, runs the rest of the chain with the branch in its context (and
  /// as the task's current features, unless told not to), closes the branch, and maps Arbor errors.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - context: Hummingbird's context, with an empty features slot.
  ///   - next: The rest of the chain.
  /// - Returns: The response.
  /// - Throws: An `HTTPError` for an Arbor error; any other error of the chain as it is.
  @inlinable
  public func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    try await serve(request, context, next)
  }

  /// Notes, as the middleware is made, that a request without a session key is branched from the
  /// sessions' parent: where that cannot branch the scope, the tree's start-up says so.
  @usableFromInline
  static func checkKeylessRequests(from parent: Features, at site: SourceLocation) {
    SessionKeyMissing.checkAtStartUp(Scope.self, from: parent, refusal: "throw HTTPError(.unauthorized)", at: site)
  }
}
