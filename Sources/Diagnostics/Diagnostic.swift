/// A structured account of something that went wrong: what, where, along which path, and how to fix it.
///
/// Every error Arbor throws carries a `Diagnostic`. It is a plain value: facts are typed fields, and
/// the causes are diagnostics of their own, so a failure deep in a resolution chain is a tree. The
/// renderers turn it into a text tree (``renderedTree(style:)``), one line (``summary(style:)``) or
/// JSON for tools (``json(pretty:)``). Arbor builds a diagnostic only when it throws: a successful
/// request formats and allocates nothing for diagnostics. `Sources/Core/Arbor.docc/Diagnostics.md` shows every kind.
///
/// ```swift
/// do {
///   let greeter: Greeter = try session.instance()
/// } catch let error as any DiagnosticError {
///   print(error.diagnostic.renderedTree())
/// }
/// ```
public struct Diagnostic: Sendable, Hashable {
  /// The kind of failure, the name of the error type that carries it: `FeatureUndefined`.
  public package(set) var kind: String
  /// What failed, in a short sentence without a final period: `no implementation of Printer`.
  public package(set) var message: String
  /// Where the failing request was made (`requested at`).
  public package(set) var location: SourceLocation?
  /// The name of the feature the diagnostic is about, if any.
  public package(set) var feature: String?
  /// The scopes from the root to the branch where it failed, each with its context.
  public package(set) var scope: [ScopeStep]
  /// The resolution path: the features being loaded when it failed, outermost first.
  public package(set) var path: [PathStep]
  /// The implementation that was running, and where it was registered: set by Arbor's own failures.
  package var implementation: Implementation?
  /// The scopes that were searched for an implementation, nearest first.
  public package(set) var searched: [String]
  /// Further facts, each a labelled line: where else a feature is registered, both sites of a conflict.
  public package(set) var notes: [Note]
  /// How to fix it: what to write, and where.
  public package(set) var fix: String?
  /// The failures that caused this one.
  public package(set) var causes: [Diagnostic]

  /// Creates a diagnostic.
  ///
  /// - Parameters:
  ///   - kind: The kind of failure, usually the error type's name.
  ///   - message: What failed.
  ///   - location: Where the failing request was made.
  ///   - feature: The feature the diagnostic is about.
  ///   - scope: The scope path of the branch where it failed.
  ///   - path: The resolution path.
  ///   - searched: The scopes searched, nearest first.
  ///   - notes: Further labelled facts.
  ///   - fix: How to fix it.
  ///   - causes: The diagnostics of the causes.
  public init(
    kind: String,
    message: String,
    location: SourceLocation? = nil,
    feature: String? = nil,
    scope: [ScopeStep] = [],
    path: [PathStep] = [],
    searched: [String] = [],
    notes: [Note] = [],
    fix: String? = nil,
    causes: [Diagnostic] = []
  ) {
    self.kind = kind
    self.message = message
    self.location = location
    self.feature = feature
    self.scope = scope
    self.path = path
    self.implementation = nil
    self.searched = searched
    self.notes = notes
    self.fix = fix
    self.causes = causes
  }
}

extension Diagnostic {
  /// One scope on the way from the root to a branch, with the context that branch carries.
  public struct ScopeStep: Sendable, Hashable {
    /// The scope's name: `SessionScope`.
    public package(set) var name: String
    /// The branch's context as `String(describing:)` renders it, or `nil` when the scope has none.
    public package(set) var context: String?

    /// Creates a scope step.
    ///
    /// - Parameters:
    ///   - name: The scope's name.
    ///   - context: The branch's context, described.
    public init(name: String, context: String? = nil) {
      self.name = name
      self.context = context
    }
  }

  /// One feature on the resolution path, with the place it was requested from.
  public struct PathStep: Sendable, Hashable {
    /// The feature's name.
    public package(set) var feature: String
    /// Where it was requested.
    public package(set) var location: SourceLocation?

    /// Creates a path step.
    ///
    /// - Parameters:
    ///   - feature: The feature's name.
    ///   - location: Where it was requested.
    public init(feature: String, location: SourceLocation? = nil) {
      self.feature = feature
      self.location = location
    }
  }

  /// An implementation of a feature: its name, where it was registered, and in which scope.
  package struct Implementation: Sendable, Hashable {
    /// The implementation's name: `Greeter.live()`.
    package var name: String
    /// Where it was registered (`registry.use(...)`).
    package var location: SourceLocation?
    /// The scope whose registry holds it.
    package var scope: String?

    /// Creates an implementation fact.
    ///
    /// - Parameters:
    ///   - name: The implementation's name.
    ///   - location: Where it was registered.
    ///   - scope: The scope whose registry holds it.
    package init(name: String, location: SourceLocation? = nil, scope: String? = nil) {
      self.name = name
      self.location = location
      self.scope = scope
    }
  }

  /// A labelled fact that has no field of its own.
  public struct Note: Sendable, Hashable {
    /// The label, rendered before a colon: `registered in`.
    public package(set) var label: String
    /// The fact; may span several lines.
    public package(set) var value: String

    /// Creates a note.
    ///
    /// - Parameters:
    ///   - label: The label.
    ///   - value: The fact.
    public init(_ label: String, _ value: String) {
      self.label = label
      self.value = value
    }
  }
}
