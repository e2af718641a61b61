import Arbor
import Testing

@Suite struct UnimplementedTests {
  @Test func placeholderMembersOfEveryShapeTypeCheckAndThrowingOnesThrow() throws {
    let shapes = Shapes.placeholder
    var thrown: (any Error)?
    var mapped: (any Error)?
    let (value, reports) = IssueReporting.capturingReports {
      do { try shapes.throwing() } catch { thrown = error }
      do { _ = try shapes.mapping(1) } catch { mapped = error }
      return shapes.value()
    }
    // Each call reports where its placeholder is written: a failure, or a warning for the member
    // that goes on with its placeholder value.
    #expect(
      reports.map(\.diagnostic.message) == [
        "Unimplemented: Shapes.throwing", "Unimplemented: Shapes.mapping", "Unimplemented: Shapes.value",
      ])
    #expect(reports.map(\.severity) == [.failure, .failure, .warning])
    #expect(reports.map { $0.site?.fileID.description } == Array(repeating: "ArborTests/Fixtures.swift", count: 3))
    #expect(thrown is FeatureUnimplemented)
    let error = mapped as? FeatureUnimplemented
    #expect(error?.member == "Shapes.mapping")
    #expect(error?.location.fileID.description == "ArborTests/Fixtures.swift")
    #expect(value == 7)
  }
}
