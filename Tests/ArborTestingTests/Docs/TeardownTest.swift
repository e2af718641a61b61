// Sources/Core/Arbor.docc/Lifecycle.md, "In tests".
import ArborTesting
import Synchronization
import Testing

@Suite struct TeardownTest {
  struct Journal: CacheableFeature {
    var write: @Sendable (String) -> Void
    static var placeholder: Journal { Journal(write: unimplemented("Journal.write")) }
  }

  @Test func theJournalIsFlushedWhenItsBranchCloses() async throws {
    let flushed = Mutex<[String]>([])
    let lines = Mutex<[String]>([])
    let loader = FeatureLoader.cacheable { _ in
      Journal(write: { line in lines.withLock { $0.append(line) } })
    } teardown: { _ in
      flushed.withLock { $0 = lines.withLock { $0 } }
    }
    let features = TestFeatures()
    let journal: Journal = try await features.load(loader)  // torn down when the container closes
    journal.write("opened")
    try await features.close()
    #expect(flushed.withLock { $0 } == ["opened"])
    #expect(features.tornDown.map(\.name) == ["Journal"])
  }
}
