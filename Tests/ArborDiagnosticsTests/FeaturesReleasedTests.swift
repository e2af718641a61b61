import Arbor
import ArborDemoFeatures
import Testing

/// Features kept past their branch's release fail with where they were used and how to keep them.
@Suite struct FeaturesReleasedTests {
  @Test func usingALoadersFeaturesAfterTheirBranchWasReleased() throws {
    let features = try featuresOfAReleasedBranch()
    let line = #line + 1
    let error = #expect(throws: FeaturesReleased.self) { try features.instance(of: Printer.self) }
    expectRenderings(
      of: error,
      tree: """
        FeaturesReleased: the branch of these features was released
        ├─ requested at: \(site(line))
        └─ fix: keep the Features of the branch (or of a branch below it) while instances loaded from it are in use
        """,
      line: "FeaturesReleased: the branch of these features was released (\(site(line)))")
  }
}
