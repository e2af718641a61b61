// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "What an unpatched member does".
import ArborDemoFeatures
import ArborTesting
import Testing

@Suite struct UnpatchedMemberTest {
  @Test func greetingWithoutAPrinterRecordsAnIssue() throws {
    let features = TestFeatures()
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let greeter: Greeter = try features.load(Greeter.live())
    try withKnownIssue("Expected: Printer.print is left unpatched on purpose") {
      try greeter.greet()  // Printer.print was not patched
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        #"""
        FeatureUnimplemented: Unimplemented: Printer.print
        ├─ placeholder at: ArborDemoFeatures/Printer.swift:21
        └─ fix: patch it in the test with features.patch(\Printer.print, with: ...),
                or resolve Printer from a tree that registers an implementation
        """#
      ]
    }
  }
}
