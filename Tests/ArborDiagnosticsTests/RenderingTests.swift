import Arbor
import Testing

/// The text renderers on hand-built diagnostics: fact order, multi-line values, several causes.
@Suite struct RenderingTests {
  let here = Arbor.SourceLocation(fileID: "App/Main.swift", line: 42)

  @Test func factsComeInTheirFixedOrderAndMultiLineValuesHang() {
    var diagnostic = Diagnostic(
      kind: "Custom", message: "it failed", location: here, feature: "Greeter",
      scope: [.init(name: "Root"), .init(name: "SessionScope", context: "ann")],
      path: [.init(feature: "Greeter", location: here), .init(feature: "Printer")],
      searched: ["SessionScope", "Root"], notes: [.init("seen", "once\ntwice")], fix: "do this\nor that",
      causes: [Diagnostic(kind: "Inner", message: "below", fix: "fix it")])
    diagnostic.implementation = .init(
      name: "Greeter.live()", location: Arbor.SourceLocation(fileID: "App/Greeter.swift", line: 3), scope: "Root")
    #expect(
      diagnostic.renderedTree() == """
        Custom: it failed
        ├─ requested at: App/Main.swift:42
        ├─ scope: Root › SessionScope(ann)
        ├─ path: Greeter → Printer
        ├─ implementation: Greeter.live() registered at App/Greeter.swift:3 in Root
        ├─ searched: SessionScope, Root
        ├─ seen: once
        │        twice
        ├─ fix: do this
        │       or that
        └─ cause: Inner: below
           └─ fix: fix it
        """)
    #expect(String(describing: diagnostic) == diagnostic.renderedTree())
  }

  @Test func severalCausesAreSiblingsInTheTreeAndFollowEachOtherOnTheLine() {
    let diagnostic = Diagnostic(
      kind: "Outer", message: "two things failed", location: here,
      causes: [
        Diagnostic(kind: "First", message: "one", causes: [Diagnostic(kind: "Deep", message: "root cause")]),
        Diagnostic(kind: "Second", message: "two\nlines"),
      ])
    #expect(
      diagnostic.renderedTree() == """
        Outer: two things failed
        ├─ requested at: App/Main.swift:42
        ├─ cause: First: one
        │  └─ cause: Deep: root cause
        └─ cause: Second: two
              lines
        """)
    #expect(
      diagnostic.summary()
        == "Outer: two things failed (App/Main.swift:42) ← First: one ← Deep: root cause ← Second: two lines")
    #expect(
      diagnostic.summary(style: .ascii)
        == "Outer: two things failed (App/Main.swift:42) <- First: one <- Deep: root cause <- Second: two lines")
  }

  @Test func aDiagnosticWithoutFactsIsItsHeadline() {
    let diagnostic = Diagnostic(kind: "Bare", message: "nothing else")
    #expect(diagnostic.renderedTree() == "Bare: nothing else")
    #expect(diagnostic.summary() == "Bare: nothing else")
  }

  @Test func asciiReplacesArborsSeparatorsInNotesAndFixesToo() {
    let diagnostic = Diagnostic(
      kind: "Custom", message: "m", notes: [.init("defined in", "Root › SessionScope")], fix: "A → B")
    #expect(
      diagnostic.renderedTree(style: .ascii) == """
        Custom: m
        |- defined in: Root > SessionScope
        `- fix: A -> B
        """)
  }

  @Test func anyErrorBecomesADiagnosticItsTypeAndDescriptionOrItsOwnTree() {
    #expect(Diagnostic(describing: Offline()) == Diagnostic(kind: "Offline", message: "the network is down"))
    #expect(Diagnostic(describing: QuotaExceeded()) == QuotaExceeded().diagnostic)
  }

  @Test func anErrorWhoseDescriptionNamesItsTypeIsNamedOnce() {
    /// Describes itself as HTTP libraries' errors do: `NotFound: no todo 7`.
    struct NotFound: Error, CustomStringConvertible {
      var description: String { "NotFound: no todo 7" }
    }
    let diagnostic = Diagnostic(describing: NotFound())
    #expect(diagnostic == Diagnostic(kind: "NotFound", message: "no todo 7"))
    #expect(diagnostic.summary() == "NotFound: no todo 7")

    /// Describes itself as Vapor's errors do: `Abort.404: no todo 7`.
    struct Abort: Error, CustomStringConvertible {
      var description: String { "Abort.404: no todo 7" }
    }
    #expect(Diagnostic(describing: Abort()).summary() == "Abort: 404: no todo 7")
  }
}
