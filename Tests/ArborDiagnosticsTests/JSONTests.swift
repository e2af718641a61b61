import Arbor
import ArborDemoFeatures
import Testing

/// The JSON of a diagnostic: every key, in a stable order, `null` for absent facts, causes nested.
@Suite struct JSONTests {
  @Test func aNestedFailureAsJSON() throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in
            _ = try features.instance(of: Printer.self)
            return Greeter.placeholder
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = try #require(#expect(throws: FeatureLoadingFailed.self) { try session.instance(of: Greeter.self) })
    let file = "ArborDiagnosticsTests/JSONTests.swift"
    #expect(
      error.diagnostic.json() == """
        {
          "kind": "FeatureLoadingFailed",
          "message": "could not load Greeter",
          "location": {
            "fileID": "\(file)",
            "line": \(line)
          },
          "feature": "Greeter",
          "scope": [
            {
              "name": "Root",
              "context": null
            },
            {
              "name": "SessionScope",
              "context": "Session(user: \\"ann\\")"
            }
          ],
          "path": [
            {
              "feature": "Greeter",
              "location": {
                "fileID": "\(file)",
                "line": \(line)
              }
            },
            {
              "feature": "Printer",
              "location": {
                "fileID": "\(file)",
                "line": \(base + 5)
              }
            }
          ],
          "implementation": {
            "name": "Greeter.live()",
            "location": {
              "fileID": "\(file)",
              "line": \(base + 3)
            },
            "scope": "SessionScope"
          },
          "searched": [],
          "notes": [],
          "fix": null,
          "causes": [
            {
              "kind": "FeatureUndefined",
              "message": "no implementation of Printer",
              "location": {
                "fileID": "\(file)",
                "line": \(base + 5)
              },
              "feature": "Printer",
              "scope": [],
              "path": [],
              "implementation": null,
              "searched": [
                "SessionScope",
                "Root"
              ],
              "notes": [],
              "fix": "register a loader for Printer with registry.use(...) in FeaturesRoot\\nor in defineScope(SessionScope.self)",
              "causes": []
            }
          ]
        }
        """)
  }

  @Test func compactJSONIsOneLineAndEscapesText() {
    let diagnostic = Diagnostic(
      kind: "Custom", message: "a \"quoted\"\tword\nand a \u{1}", notes: [.init("where", #"C:\path"#)])
    #expect(
      diagnostic.json(pretty: false)
        == #"{"kind":"Custom","message":"a \"quoted\"\tword\nand a \u0001","location":null,"feature":null,"#
        + #""scope":[],"path":[],"implementation":null,"searched":[],"notes":[{"label":"where","value":"C:\\path"}],"#
        + #""fix":null,"causes":[]}"#)
  }

  @Test func aPathStepOrImplementationWithoutALocationHasNull() {
    var diagnostic = Diagnostic(kind: "Custom", message: "m", path: [.init(feature: "A")])
    diagnostic.implementation = .init(name: "A.live()")
    #expect(
      diagnostic.json(pretty: false)
        == #"{"kind":"Custom","message":"m","location":null,"feature":null,"scope":[],"#
        + #""path":[{"feature":"A","location":null}],"implementation":{"name":"A.live()","location":null,"scope":null},"#
        + #""searched":[],"notes":[],"fix":null,"causes":[]}"#)
  }
}
