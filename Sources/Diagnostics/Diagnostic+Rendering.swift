extension Diagnostic {
  /// The characters a rendering draws its tree and arrows with.
  public enum Style: Sendable, Hashable {
    /// Box-drawing characters and arrows: `├─`, `└─`, `→`, `›`.
    case unicode
    /// Plain ASCII, for logs that mangle Unicode: `|-`, `` `- ``, `->`, `>`.
    case ascii

    var branch: String { self == .unicode ? "├─ " : "|- " }
    var lastBranch: String { self == .unicode ? "└─ " : "`- " }
    var trunk: String { self == .unicode ? "│  " : "|  " }
    var arrow: String { self == .unicode ? " → " : " -> " }
    var scopeSeparator: String { self == .unicode ? " › " : " > " }
    var causeSeparator: String { self == .unicode ? " ← " : " <- " }
  }

  /// The whole tree, one fact a line, causes nested below.
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
    var lines: [String] = []
    appendTree(to: &lines, prefix: "", style: style)
    return lines.joined(separator: "\n")
  }

  /// One line: each diagnostic's kind, message and location, causes after a `←`.
  ///
  /// ```
  /// FeatureLoadingFailed: could not load Greeter (App/Main.swift:42) ← FeatureUndefined: no implementation of Printer (App/Greeter.swift:17)
  /// ```
  ///
  /// - Parameter style: Unicode (the default) or ASCII arrows.
  /// - Returns: The summary line.
  public func summary(style: Style = .unicode) -> String {
    var line = headline
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
    for note in notes { facts.append((note.label, note.value)) }
    if let fix { facts.append(("fix", fix)) }
    return facts
  }

  /// Renders a scope path: `Root › SessionScope(Session(user: "ann"))`.
  ///
  /// - Parameters:
  ///   - scope: The steps, root first.
  ///   - style: Unicode or ASCII separators.
  /// - Returns: The rendered path.
  public static func render(scope: [ScopeStep], style: Style = .unicode) -> String {
    scope.map { step in step.context.map { "\(step.name)(\($0))" } ?? step.name }
      .joined(separator: style.scopeSeparator)
  }

  private func appendTree(to lines: inout [String], prefix: String, style: Style) {
    let headlineLines = headline.split(separator: "\n", omittingEmptySubsequences: false)
    lines.append(String(headlineLines[0]))
    let items = facts(style: style).map { Item.fact($0.label, $0.value) } + causes.map(Item.cause)
    // Continuation lines of a multi-line headline hang under the first child's trunk.
    let headlineIndent = prefix + (items.isEmpty ? "   " : style.trunk)
    for line in headlineLines.dropFirst() { lines.append(headlineIndent + line) }

    for (index, item) in items.enumerated() {
      let isLast = index == items.count - 1
      let branch = prefix + (isLast ? style.lastBranch : style.branch)
      let childPrefix = prefix + (isLast ? "   " : style.trunk)
      switch item {
      case .fact(let label, let value):
        let valueLines = value.split(separator: "\n", omittingEmptySubsequences: false)
        lines.append(branch + label + ": " + valueLines[0])
        let hang = childPrefix + String(repeating: " ", count: label.count + 2)
        for line in valueLines.dropFirst() { lines.append(hang + line) }
      case .cause(let cause):
        var nested: [String] = []
        cause.appendTree(to: &nested, prefix: childPrefix, style: style)
        lines.append(branch + "cause: " + nested[0])
        lines.append(contentsOf: nested.dropFirst())
      }
    }
  }

  private enum Item {
    case fact(String, String)
    case cause(Diagnostic)
  }
}
