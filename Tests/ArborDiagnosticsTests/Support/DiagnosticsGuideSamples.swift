import Arbor
import ArborDemoFeatures
import Testing

// The Swift samples of Sources/Core/Arbor.docc/Diagnostics.md that are not failures of
// DocExamples: how to read an error, and how to ask what serves a feature or a property. Compiled,
// and run by the tests below (which keep standard output quiet by reading what would be printed).

enum DiagnosticsGuideSamples {
  static func readingAnError(in session: Features, print: (Any) -> Void) {
    do {
      let greeter: Greeter = try session.instance()
      try greeter.greet()
    } catch {
      print(error)  // one line
      print(String(reflecting: error))  // the whole tree
      if let error = error as? any DiagnosticError {
        print(error.diagnostic.renderedTree(style: .ascii))  // for logs that mangle Unicode
        print(error.diagnostic.json())  // for tools
      }
    }
  }

  static func askingWhatServes(_ session: Features, print: (Any) -> Void) {
    print(session.which(Checkout.self))
    print(session.which(RequestTimeout.self))
  }
}

@Suite struct DiagnosticsGuideSamplesTests {
  @Test func anErrorReadsAsOneLineATreeAndJSON() throws {
    var printed: [String] = []
    let root = FeaturesRoot { _ in }
    DiagnosticsGuideSamples.readingAnError(in: root) { printed.append("\($0)") }
    #expect(printed.count == 4)
    #expect(printed.first?.hasPrefix("FeatureUndefined: no implementation of Greeter (") == true)
    #expect(printed.last?.hasPrefix("{") == true)
  }

  @Test func whichAnswersForFeaturesAndProperties() {
    var printed: [String] = []
    DiagnosticsGuideSamples.askingWhatServes(FeaturesRoot { _ in }) { printed.append("\($0)") }
    #expect(printed.first?.hasPrefix("Checkout is not served here") == true)
    #expect(printed.last?.hasPrefix("RequestTimeout is 30.0 seconds") == true)
  }
}
