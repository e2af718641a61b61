import Arbor
import Testing

@Suite struct UnimplementedTests {
  @Test func placeholderMembersOfEveryShapeTypeCheckAndThrowingOnesThrow() throws {
    let shapes = Shapes.placeholder
    withKnownIssue(isIntermittent: true) {  // a test failure where ArborTesting's reporter is installed
      #expect(throws: FeatureUnimplemented.self) { try shapes.throwing() }
      let error = #expect(throws: FeatureUnimplemented.self) { try shapes.mapping(1) }
      #expect(error?.member == "Shapes.mapping")
      #expect(error?.location.fileID.description == "ArborTests/Fixtures.swift")
      #expect(shapes.value() == 7)
    }
  }
}
