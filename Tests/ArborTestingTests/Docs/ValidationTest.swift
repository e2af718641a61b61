import Arbor
import ArborDemoFeatures
import ArborTesting
import Foundation
import Testing

// The samples of Sources/Core/Arbor.docc/Validation.md, compiled and run.

@Test func theAppTreeIsSound() async {
  await expectValidTree(DemoTree.root()) { contexts in
    contexts.use(Session(user: "check"), for: SessionScope.self)
  }
}

@Test func theAppTreeIsSoundWithoutTouchingTheNetwork() async throws {
  let copy = TestFeatures(DemoTree.root())
  copy.use(Printer(print: { _ in }))  // its loader would open a terminal: not while validating
  let validation = await copy.validate { contexts in
    contexts.use(Session(user: "check"), for: SessionScope.self)
  }
  try validation.check()
}

@Test func startupProfile() throws {
  let profile = LoadProfile()
  let root = FeaturesRoot(observer: profile) { registry in
    registry.use(Clock(now: { 0 }))
    registry.use(Printer.console())
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Greeter.live())
    }
  }
  let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
  _ = try session.instance(of: Greeter.self)
  print(profile.report())
  #expect(profile.loads.count == 2)
}

/// Sources/Core/Arbor.docc/Validation.md shows the demo's graph as `arbor-demo` prints it; regenerate the block with
/// `ARBOR_UPDATE_DOCS=1 swift test --filter theGuideShowsTheDemosGraph`.
@Test func theGuideShowsTheDemosGraph() async throws {
  let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
      "Sources/Core/Arbor.docc/Validation.md")
  var text = try String(contentsOf: guide, encoding: .utf8)
  let graph = await DemoTree.root().validate { $0.use(Session(user: "check"), for: SessionScope.self) }.graph
  let marker = "<!-- generated: demo-graph -->\n```mermaid\n"
  let start = try #require(text.range(of: marker)).upperBound
  let end = try #require(text[start...].range(of: "```")).lowerBound
  if ProcessInfo.processInfo.environment["ARBOR_UPDATE_DOCS"] != nil {
    text.replaceSubrange(start..<end, with: graph.mermaid() + "\n")
    try text.write(to: guide, atomically: true, encoding: .utf8)
  }
  #expect(String(text[start..<end]) == graph.mermaid() + "\n")
}
