import Arbor
import ArborDemoFeatures
import Testing

/// A disposable registered at the root that reads a session's context: it loads in the branch that
/// requests it, so it works from a session branch and fails anywhere else. Validation checks it
/// where it is registered and reports that once, with the fix that holds wherever it is requested.
@Suite struct ValidationDisposableContextTests {
  /// A line of output tagged with the session's user.
  struct TaggedLine: DisposableFeature {
    var write: @Sendable (String) -> String
    static var placeholder: TaggedLine { TaggedLine(write: unimplemented("TaggedLine.write", placeholder: "")) }
  }

  /// A session feature that requests the tagged line.
  struct Welcome: CacheableFeature {
    var text: String
    static var placeholder: Welcome { Welcome(text: "") }
  }

  static func tree() -> Features {
    FeaturesRoot { registry in
      registry.use(
        .disposable(implementation: "tagged()", file: "App/TaggedLine.swift", line: 10) { features in
          let session = try features.context(for: SessionScope.self, file: "App/TaggedLine.swift", line: 11)
          return TaggedLine(write: { "[\(session.user)] \($0)" })
        }, file: "App/Main.swift", line: 20)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 21) { registry in
        registry.use(
          .cacheable(implementation: "live()", file: "App/Welcome.swift", line: 5) { features in
            let line: TaggedLine = try features.instance(file: "App/Welcome.swift", line: 6)
            return Welcome(text: line.write("welcome"))
          }, file: "App/Main.swift", line: 22)
      }
    }
  }

  @Test func itWorksFromASessionBranchAndFailsFromTheRootAsValidationSays() throws {
    let tree = Self.tree()
    let session = try tree.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: Welcome.self).text == "[ann] welcome")
    let error = #expect(throws: FeatureLoadingFailed.self) { try tree.instance(of: TaggedLine.self) }
    let cause = error?.cause as? FeaturesScopeContextUnavailable
    #expect(cause?.diagnostic.fix?.hasPrefix("register TaggedLine in defineScope(SessionScope.self)") == true)
  }

  @Test func validationReportsItOnceWithTheFixToRegisterItInTheSessionsScope() async throws {
    let validation = await Self.tree().validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
    }
    #expect(
      validation.problems.map { String(reflecting: $0) } == [
        """
        FeaturesScopeContextUnavailable: no context for SessionScope
        ├─ requested at: App/TaggedLine.swift:11
        ├─ scope: Root
        ├─ why: TaggedLine is disposable and registered in Root, so it loads in the branch that requests it:
        │       this Root branch has no SessionScope branch on its path
        └─ fix: register TaggedLine in defineScope(SessionScope.self), so that only branches of SessionScope and below resolve it
        """
      ])
  }

  @Test func registeredInTheSessionsScopeAsTheFixSaysTheTreeIsValid() async throws {
    let tree = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .disposable { features in
            let session = try features.context(for: SessionScope.self)
            return TaggedLine(write: { "[\(session.user)] \($0)" })
          })
        registry.use(.cacheable { features in Welcome(text: try features.instance(of: TaggedLine.self).write("hi")) })
      }
    }
    let validation = await tree.validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
    }
    #expect(validation.problems.isEmpty)
    let session = try tree.branch(SessionScope.self, context: Session(user: "ann"))
    let welcome: Welcome = try await session.instance()
    #expect(welcome.text == "[ann] hi")
  }
}
