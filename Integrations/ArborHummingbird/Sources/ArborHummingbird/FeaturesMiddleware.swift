import Arbor
import Hummingbird

/// Branches a request scope for every request, with a context built from the request, and hands the
/// branch to the handlers through their request context.
///
/// The branch is made from the root, or from the branch `parent` returns for the request (the
/// caller's session branch, say), so a request resolves its own scope's features first, then its
/// parent's, up to the root. It is also the task's current features while the rest of the chain
/// runs, so `Features.current()` and `@Resolved` work in handlers. An Arbor error thrown while
/// branching or by a handler is logged and answered as ``DiagnosticErrorMapping`` says.
///
/// ```swift
/// enum RequestScope: FeaturesScope { typealias Context = RequestInfo }
///
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

  /// The features a request is branched from when `parent` is `nil` or returns `nil`.
  let root: Features
  /// The branch a request is branched from, chosen per request; `nil` for the root.
  let parent: (@Sendable (Request, Context) async throws -> Features?)?
  /// The context of a request's branch.
  let makeContext: @Sendable (Request, Context) async throws -> Scope.Context
  /// How Arbor errors become responses and log entries.
  let errors: DiagnosticErrorMapping

  /// A middleware that branches `scope` for every request, with the context `context` builds.
  ///
  /// ```swift
  /// FeaturesMiddleware(root: root, scope: RequestScope.self, parent: { request, _ in
  ///   try await sessions.branch(for: request.headers[.authorization])
  /// }) { request, context in
  ///   RequestInfo(id: context.id, path: request.uri.path)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - root: The tree's root, the parent of every request branch unless `parent` says otherwise.
  ///   - scope: The scope of request branches; defined in the root or in the parent's scope.
  ///   - parent: The branch to make the request's branch from (the caller's session, say), or `nil`
  ///     for `root`. An error it throws fails the request: throw an `HTTPError` to answer with its
  ///     status (401 for a bad credential).
  ///   - errors: How Arbor errors become responses and log entries.
  ///   - context: The context of the request's branch, built from the request and Hummingbird's
  ///     context (its request id, its logger).
  public init(
    root: Features, scope: Scope.Type,
    parent: (@Sendable (Request, Context) async throws -> Features?)? = nil,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping(),
    context: @escaping @Sendable (Request, Context) async throws -> Scope.Context
  ) {
    self.root = root
    self.parent = parent
    self.makeContext = context
    self.errors = errors
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
  public init(
    root: Features, scope: Scope.Type,
    parent: (@Sendable (Request, Context) async throws -> Features?)? = nil,
    errors: DiagnosticErrorMapping = DiagnosticErrorMapping()
  ) where Scope.Context == Void {
    self.init(root: root, scope: scope, parent: parent, errors: errors) { _, _ in () }
  }

  /// Branches the request's scope, runs the rest of the chain with the branch in its context, and
  /// maps Arbor errors.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - context: Hummingbird's context, with an empty features slot.
  ///   - next: The rest of the chain.
  /// - Returns: The response.
  /// - Throws: An `HTTPError` for an Arbor error; any other error of the chain as it is.
  public func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let branch: Features
    do {
      let parent = try await parent?(request, context) ?? root
      branch = try parent.branch(Scope.self, context: try await makeContext(request, context))
    } catch let error as any DiagnosticError where !(error is any HTTPResponseError) {
      throw errors.map(error, logger: context.logger)
    }
    var context = context
    context.requestFeatures = RequestFeatures(branch)
    do {
      return try await branch.withCurrent { try await next(request, context) }
    } catch let error as any DiagnosticError where !(error is any HTTPResponseError) {
      throw errors.map(error, logger: context.logger)
    }
  }
}
