extension Diagnostic {
  /// The characters a rendering draws its tree and arrows with.
  ///
  /// The two styles draw the same tree line for line; only the characters differ. ASCII also
  /// replaces the separators Arbor writes inside messages, notes and fixes (` › `, ` → `, ` ← `).
  ///
  /// ```swift
  /// logger.error("\(error.diagnostic.renderedTree(style: .ascii))")
  /// ```
  public enum Style: Sendable, Hashable {
    /// Box-drawing characters and arrows: `├─`, `└─`, `│`, `→`, `›`, `←`.
    case unicode
    /// Plain ASCII, for logs that mangle Unicode: `|-`, a backquote and `-`, `|`, `->`, `>`, `<-`.
    case ascii

    var branch: String { self == .unicode ? "├─ " : "|- " }
    var lastBranch: String { self == .unicode ? "└─ " : "`- " }
    var trunk: String { self == .unicode ? "│  " : "|  " }
    var arrow: String { self == .unicode ? " → " : " -> " }
    var scopeSeparator: String { self == .unicode ? " › " : " > " }
    var causeSeparator: String { self == .unicode ? " ← " : " <- " }

    /// Free text (a message, a note, a fix) in this style: notes and fixes are written with the
    /// Unicode separators, which ASCII replaces like the facts it draws itself.
    func text(_ text: String) -> String {
      guard self == .ascii, text.unicodeScalars.contains(where: { !$0.isASCII }) else { return text }
      return [(" › ", " > "), (" → ", " -> "), (" ← ", " <- ")].reduce(text) { text, pair in
        text.split(separator: pair.0, omittingEmptySubsequences: false).joined(separator: pair.1)
      }
    }
  }

  /// The whole tree, one fact a line, causes nested below.
  ///
  /// Facts come in a fixed order: `requested at`, `scope`, `path` (when it has more than one step),
  /// `implementation`, `searched`, the notes, `fix`; then each cause, as a tree of its own. A value
  /// that spans lines hangs under its first line.
  ///
  /// ```
  /// FeatureLoadingFailed: could not load Greeter
  /// ├─ requested at: App/Main.swift:42
  /// ├─ scope: Root › SessionScope(Session(user: "ann"))
  /// └─ cause: FeatureUndefined: no implementation of Printer
  ///    └─ fix: register a loader for Printer with registry.use(...)
  /// ```
  ///
  /// - Parameter style: Unicode box drawing (the default) or ASCII.
  /// - Returns: The rendered tree, lines separated by `\n`, without a final newline.
  public func renderedTree(style: Style = .unicode) -> String {
    renderTree(style: style)
  }

  /// One line: each diagnostic's kind, message and location, causes after a `←`.
  ///
  /// A diagnostic with several causes lists them one after the other; line breaks inside a message
  /// become spaces.
  ///
  /// ```
  /// FeatureLoadingFailed: could not load Greeter (App/Main.swift:42) ← FeatureUndefined: no implementation of Printer (App/Greeter.swift:17)
  /// ```
  ///
  /// - Parameter style: Unicode (the default) or ASCII arrows.
  /// - Returns: The summary line.
  public func summary(style: Style = .unicode) -> String {
    var line = style.text(headline)
    if let location { line += " (\(location))" }
    for cause in causes {
      line += style.causeSeparator + cause.summary(style: style)
    }
    return line.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
  }

  /// `Kind: message`.
  var headline: String { "\(kind): \(message)" }

  /// The labelled facts in their rendering order.
  func facts(style: Style) -> [(label: String, value: String)] {
    var facts: [(String, String)] = []
    if let location { facts.append(("requested at", location.description)) }
    if !scope.isEmpty { facts.append(("scope", Self.render(scope: scope, style: style))) }
    if path.count > 1 { facts.append(("path", path.map(\.feature).joined(separator: style.arrow))) }
    if let implementation {
      var value = implementation.name
      if let location = implementation.location { value += " registered at \(location)" }
      if let scope = implementation.scope { value += " in \(scope)" }
      facts.append(("implementation", value))
    }
    if !searched.isEmpty { facts.append(("searched", searched.joined(separator: ", "))) }
    for note in notes { facts.append((note.label, style.text(note.value))) }
    if let fix { facts.append(("fix", style.text(fix))) }
    return facts
  }

  /// Renders a scope path: `Root › SessionScope(Session(user: "ann"))`.
  ///
  /// A step with a context shows it in parentheses; a step without one shows its name alone.
  ///
  /// ```swift
  /// Diagnostic.render(scope: [.init(name: "Root"), .init(name: "SessionScope", context: "ann")])
  /// // "Root › SessionScope(ann)"
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The steps, root first.
  ///   - style: Unicode or ASCII separators.
  /// - Returns: The rendered path.
  package static func render(scope: [ScopeStep], style: Style = .unicode) -> String {
    scope.map { step in step.context.map { "\(step.name)(\($0))" } ?? step.name }
      .joined(separator: style.scopeSeparator)
  }

  /// This diagnostic as a node of a rendered tree: its facts, then its causes.
  package func treeNode(style: Style) -> TreeNode {
    TreeNode(
      headline: style.text(headline), facts: facts(style: style),
      children: causes.map { (label: "cause", node: $0.treeNode(style: style)) })
  }
}

extension Diagnostic: CustomStringConvertible {
  /// The whole tree, as ``renderedTree(style:)`` draws it with Unicode.
  public var description: String { renderedTree() }
}
