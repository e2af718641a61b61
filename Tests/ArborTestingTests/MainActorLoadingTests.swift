import ArborTestSupport
import ArborTesting
import Testing

/// A main-actor model, built by its own initialiser.
@MainActor
private final class ComposerModel {
  var draft: String
  init(draft: String) { self.draft = draft }
}

private struct Composer: CacheableFeature {
  var draft: @MainActor @Sendable () -> String
  static var placeholder: Composer { Composer(draft: { "" }) }
}

private struct Signature: CacheableFeature {
  var text: @Sendable () -> String
  static var placeholder: Signature { Signature(text: { "" }) }
}

extension Composer {
  fileprivate static func live() -> FeatureLoader {
    .cacheable(on: MainActor.self) { features in
      let signature = try features.instance(of: Signature.self)
      let model = ComposerModel(draft: "\n-- \n" + signature.text())
      return Composer(draft: { model.draft })
    }
  }
}

/// A test container loads a main-actor loader on the main actor, with its patches, and refuses a
/// synchronous load of it anywhere else.
@Suite struct MainActorLoadingTests {
  @MainActor @Test func aMainActorLoaderUnderTestSeesThePatchesOnTheMainActor() throws {
    let features = TestFeatures()
    features.patch(\Signature.text, with: { "ann" })
    let composer: Composer = try features.load(Composer.live())
    #expect(composer.draft() == "\n-- \nann")
  }

  @MainActor @Test func aPatchedMainActorFeatureServesTheMainActorCode() throws {
    let features = TestFeatures()
    features.use(Composer(draft: { "patched" }))
    let composer = try features.instance(of: Composer.self)
    #expect(composer.draft() == "patched")
  }

  @Test func anAwaitedLoadFromElsewhereHopsToTheMainActor() async throws {
    let draft = try await Task.detached {
      let features = TestFeatures()
      features.patch(\Signature.text, with: { "bob" })
      let composer: Composer = try await features.load(Composer.live())
      return await composer.draft()
    }.value
    #expect(draft == "\n-- \nbob")
  }

  @Test func aSynchronousLoadFromElsewhereIsRefusedWithTheFix() async throws {
    let line = #line + 2
    let error = await Task.detached {
      #expect(throws: TestFeaturesMisuse.self) {
        let _: Composer = try synchronously { try TestFeatures().load(Composer.live()) }
      }
    }.value
    #expect(
      error?.diagnostic.renderedTree() == """
        TestFeaturesMisuse: Composer.live() loads Composer on the main actor
        ├─ requested at: ArborTestingTests/MainActorLoadingTests.swift:\(line)
        └─ fix: load it from a @MainActor test, or await it: let composer: Composer = try await features.load(Composer.live())
        """)
  }
}
