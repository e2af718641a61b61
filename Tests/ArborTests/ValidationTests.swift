import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Synchronization
import Testing

@Suite struct ValidationTests {
  @Test func aSoundTreeHasNoProblemsAndValidationCachesNothing() async throws {
    let greeterLoads = Tally()
    let root = DemoTree.root(onGreeterLoad: { greeterLoads.next() })
    let validation = await root.validate { contexts in contexts.use(Session(user: "check"), for: SessionScope.self) }
    #expect(validation.problems.isEmpty)
    try validation.check()
    #expect(greeterLoads.value == 1)  // every loader runs once
    // Nothing was cached: the real tree loads for real.
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try synchronously { try session.instance(of: Greeter.self) }
    #expect(greeterLoads.value == 2)
  }

  @Test func anUndefinedFeatureIsReportedWithItsPathAndTheSiteOfTheRequest() async throws {
    let validation = await DemoTree.broken().validate { $0.use(Session(user: "check"), for: SessionScope.self) }
    let problem = try #require(validation.problems.first as? FeatureUndefined)
    #expect(validation.problems.count == 1)
    #expect(
      problem.diagnostic.renderedTree() == """
        FeatureUndefined: no implementation of Mailer
        ├─ requested at: ArborDemoFeatures/Greeter.swift:44
        ├─ scope: Root › SessionScope(Session(user: "check"))
        ├─ path: Greeter → Mailer
        ├─ searched: SessionScope, Root
        └─ fix: register a loader for Mailer with registry.use(...) in FeaturesRoot
                or in defineScope(SessionScope.self)
        """)
  }

  @Test func aRootCacheableReadingASessionContextIsReported() async throws {
    let line = #line + 2
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { features in Reader(user: try features.context(for: SessionScope.self).user) })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let validation = await root.validate { $0.use(Session(user: "check"), for: SessionScope.self) }
    let problem = try #require(validation.problems.first as? FeaturesScopeContextUnavailable)
    #expect(validation.problems.count == 1)
    #expect(problem.diagnostic.notes.map(\.label) == ["why"])
    #expect(problem.diagnostic.location?.line == UInt(line))
  }

  @Test func aCycleIsFoundInTheRecordedRequestsWithItsWholePath() async throws {
    let line = #line
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { features in First(try features.instance(of: Second.self)) })
      registry.use(.cacheable { features in Second(try features.instance(of: Third.self)) })
      registry.use(.cacheable { features in Third(try features.instance(of: First.self)) })
    }
    let validation = await root.validate()
    let cycle = try #require(validation.problems.first as? CircularDependency)
    #expect(validation.problems.count == 1)
    #expect(cycle.path.map { "\($0)" } == ["First", "Second", "Third", "First"])
    #expect(
      cycle.diagnostic.notes.first?.value == """
        First at ArborTests/ValidationTests.swift:\(line + 2)
        Second at ArborTests/ValidationTests.swift:\(line + 2)
        Third at ArborTests/ValidationTests.swift:\(line + 3)
        First at ArborTests/ValidationTests.swift:\(line + 4)
        """)
    #expect(validation.graph.edges.map(\.problem) == ["cycle", "cycle", "cycle"])
  }

  @Test func conflictsAndThrowingLoadersAreReported() async throws {
    // The conflict is also reported as the root is built: captured here.
    let root = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(.cacheable { _ in First(nil) })
        registry.use(.cacheable { _ in First(nil) })
        registry.use(.cacheable { _ -> Second in throw Offline() })
      }
    }.result
    let validation = await root.validate()
    #expect(validation.problems.map { $0.diagnostic.kind } == ["FeatureRegistrationConflict", "FeatureLoadingFailed"])
    #expect((validation.problems.last as? FeatureLoadingFailed)?.cause is Offline)
  }

  @Test func aScopeWithoutAContextIsLeftUncheckedWithTheScopesBelowIt() async throws {
    let line = #line + 10
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in First(nil) })
        registry.defineScope(JobScope.self) { _ in }
      }
      registry.defineScope(JobScope.self) { registry in  // Void: needs no context
        registry.use(.cacheable { features in Second(try features.instance(of: Third.self)) })
      }
    }
    let validation = await root.validate()
    #expect(validation.problems.count == 2)
    #expect(validation.problems.first is FeatureUndefined)  // JobScope, first by name, was checked
    // Unchecked scopes are drawn in place, with their registrations.
    #expect(
      validation.graph.scopes.map(\.path) == [
        ["Root"], ["Root", "JobScope"], ["Root", "SessionScope"], ["Root", "SessionScope", "JobScope"],
      ])
    #expect(validation.graph.scopes.map(\.parent) == [nil, "s0", "s0", "s2"])
    #expect(validation.graph.nodes.map(\.scope) == ["s1", "s2", nil])
    #expect(
      validation.problems.last?.diagnostic.renderedTree() == """
        FeaturesScopeUnchecked: SessionScope was not checked: no context to branch it with
        ├─ requested at: ArborTests/ValidationTests.swift:\(line)
        ├─ scope: Root
        ├─ unchecked: SessionScope, SessionScope › JobScope
        └─ fix: give one: contexts.use(<a Session>, for: SessionScope.self)
        """)
  }

  @Test func aPlaceholderMemberCalledWhileLoadingIsANoteNotAProblem() async throws {
    let line = #line
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Meter(read: { 1 }) })
      registry.use(Clock(now: { 1 }))
      registry.use(.cacheable { features in First(seconds: try features.instance(of: Meter.self).read()) })
      registry.use(
        .cacheable { features in
          try features.instance(of: Greeter.self).greet()  // throws: the placeholder is unimplemented
          return Second(nil)
        })
      registry.use(.cacheable { _ in Greeter(greet: {}) })
      registry.use(.cacheable { (id: Int, _) in Ledger(id: id) })
    }
    let (validation, reports) = await IssueReporting.capturingReports { await root.validate() }
    #expect(validation.problems.isEmpty)
    #expect(reports.isEmpty)  // nothing reached the reporter: no test failure, no warning
    #expect(
      validation.notes.map(\.description) == [
        "First.aPlaceholderMemberCalledWhileLoadingIsANoteNotAProblem() (ArborTests/ValidationTests.swift:\(line + 4)):"
          + " checked with the placeholder behaviour of Meter.read",
        "Second.aPlaceholderMemberCalledWhileLoadingIsANoteNotAProblem() (ArborTests/ValidationTests.swift:\(line + 5)):"
          + " checked up to its call of Greeter.greet",
        "Ledger.aPlaceholderMemberCalledWhileLoadingIsANoteNotAProblem() (ArborTests/ValidationTests.swift:\(line + 11)):"
          + " not run: its context is a value of type Int, which validation cannot invent",
      ])
  }

  @Test func aReportOrErrorThatOnlyReadsLikeAPlaceholderCallIsNotTakenForOne() async throws {
    let line = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          // The text and kind of a placeholder call's report, but no placeholder was called.
          IssueReporting.report(
            Diagnostic(kind: "FeatureUnimplemented", message: "Unimplemented: Clock.now"), severity: .failure)
          return First(seconds: 1)
        })
      registry.use(.cacheable { _ -> Second in throw LooksUnimplemented() })
    }
    let (validation, reports) = await IssueReporting.capturingReports { await root.validate() }
    #expect(reports.isEmpty)
    // Not "checked with the placeholder behaviour of Clock.now": the loader's own report, as it is.
    #expect(
      validation.notes.map(\.description) == [
        "First.aReportOrErrorThatOnlyReadsLikeAPlaceholderCallIsNotTakenForOne() (ArborTests/ValidationTests.swift:\(line + 2)):"
          + " reported a failure while checked: FeatureUnimplemented: Unimplemented: Clock.now"
      ])
    #expect(
      validation.problems.map(\.description) == [
        "FeatureLoadingFailed: could not load Second (ArborTests/ValidationTests.swift:\(line + 9))"
          + " ← FeatureUnimplemented: Unimplemented: Greeter.greet"
      ])
    #expect((validation.problems.first as? FeatureLoadingFailed)?.cause is LooksUnimplemented)
  }

  @Test func whatALoaderReportsWhileCheckedIsANoteNeverLost() async throws {
    let line = #line
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Meter(read: { 1 }) })
      registry.use(
        .cacheable { features in
          let seconds = try features.instance(of: Meter.self).read()  // a placeholder call, noted as one
          IssueReporting.report(
            Diagnostic(kind: "CacheCold", message: "the cache starts empty"), severity: .warning)
          return First(seconds: seconds)
        })
    }
    let (validation, reports) = await IssueReporting.capturingReports { await root.validate() }
    #expect(reports.isEmpty)
    #expect(validation.problems.isEmpty)
    let site = "ArborTests/ValidationTests.swift:\(line + 3)"
    #expect(
      validation.notes.map(\.description) == [
        "First.whatALoaderReportsWhileCheckedIsANoteNeverLost() (\(site)): checked with the placeholder behaviour of Meter.read",
        "First.whatALoaderReportsWhileCheckedIsANoteNeverLost() (\(site)): reported a warning while checked:"
          + " CacheCold: the cache starts empty",
      ])
  }

  @Test func asyncLoadersAndNestedScopesAreValidated() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(JobScope.self) { registry in
          registry.use(
            .cacheable { features async throws in
              try await Task.sleep(for: .milliseconds(1))
              return First(try await features.instance(of: Second.self))
            })
        }
      }
    }
    let validation = await root.validate { $0.use(Session(user: "check"), for: SessionScope.self) }
    let undefined = try #require(validation.problems.first as? FeatureUndefined)
    #expect(validation.problems.count == 1)
    #expect(undefined.diagnostic.scope.map(\.name) == ["Root", "SessionScope", "JobScope"])
    #expect(undefined.diagnostic.path.map(\.feature) == ["First", "Second"])
  }

  @Test func theReportOfThreeProblemsListsThemAll() async throws {
    let line = #line
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { features in First(try features.instance(of: Second.self)) })
      registry.use(.cacheable { _ -> Third in throw Offline() })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let validation = await root.validate()
    let failure = try #require(throws: FeaturesValidationFailed.self) { try validation.check() }
    #expect(
      failure.diagnostic.renderedTree() == """
        FeaturesValidationFailed: 3 problems in the features tree
        ├─ fix: fix each problem below; validation reports them all at once
        ├─ cause: FeatureUndefined: no implementation of Second
        │  ├─ requested at: ArborTests/ValidationTests.swift:\(line + 2)
        │  ├─ scope: Root
        │  ├─ path: First → Second
        │  ├─ searched: Root
        │  └─ fix: register a loader for Second with registry.use(...) in FeaturesRoot
        ├─ cause: FeatureLoadingFailed: could not load Third
        │  ├─ requested at: ArborTests/ValidationTests.swift:\(line + 3)
        │  ├─ scope: Root
        │  ├─ implementation: Third.theReportOfThreeProblemsListsThemAll() registered at ArborTests/ValidationTests.swift:\(line + 3) in Root
        │  └─ cause: Offline: the network is down
        └─ cause: FeaturesScopeUnchecked: SessionScope was not checked: no context to branch it with
           ├─ requested at: ArborTests/ValidationTests.swift:\(line + 6)
           ├─ scope: Root
           ├─ unchecked: SessionScope
           └─ fix: give one: contexts.use(<a Session>, for: SessionScope.self)
        """)
  }

  @Test func theGraphShowsScopesLifetimesRequestsAndProblems() async throws {
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.mailing())
        registry.use(.cacheable { (id: Int, _) in Ledger(id: id) })
      }
    }
    let graph = await root.validate { $0.use(Session(user: "check"), for: SessionScope.self) }.graph
    #expect(
      graph.mermaid() == """
        flowchart LR
          subgraph s0["Root"]
            n0["Clock<br/>static · Clock value"]
            n1[/"Printer<br/>disposable · Printer.console()"/]
            subgraph s1["Root › SessionScope"]
              n2(["Greeter<br/>cacheable · Greeter.mailing()"])
              n3[["Ledger<br/>cacheable per context · Ledger.theGraphShowsScopesLifetimesRequestsAndProblems()"]]
            end
          end
          u0{{"Mailer<br/>undefined"}}
          n1 -->|"ArborDemoFeatures/Printer.swift:30"| n0
          n2 -.->|"undefined: ArborDemoFeatures/Greeter.swift:44"| u0
          classDef problem stroke:#d00,color:#d00
          class u0 problem
          linkStyle 1 stroke:#d00,color:#d00
        """)
    #expect(
      graph.dot() == #"""
        digraph Features {
          rankdir=LR;
          node [fontname="Helvetica"];
          subgraph cluster_s0 {
            label="Root";
            n0 [label="Clock\nstatic · Clock value", shape=box];
            n1 [label="Printer\ndisposable · Printer.console()", shape=parallelogram];
            subgraph cluster_s1 {
              label="Root › SessionScope";
              n2 [label="Greeter\ncacheable · Greeter.mailing()", shape=ellipse];
              n3 [label="Ledger\ncacheable per context · Ledger.theGraphShowsScopesLifetimesRequestsAndProblems()", shape=ellipse, peripheries=2];
            }
          }
          u0 [label="Mailer\nundefined", shape=hexagon, color=red, fontcolor=red];
          n1 -> n0 [label="ArborDemoFeatures/Printer.swift:30"];
          n2 -> u0 [label="undefined\nArborDemoFeatures/Greeter.swift:44", color=red, fontcolor=red, style=dashed];
        }
        """#)
    #expect(
      graph.json(pretty: false).hasPrefix(
        #"{"scopes":[{"id":"s0","path":["Root"],"parent":null},{"id":"s1","path":["Root","SessionScope"],"parent":"s0"}],"#
          + #""nodes":[{"id":"n0","feature":"Clock","kind":"static","async":false,"mainActor":false,"#
          + #""implementation":"Clock value","#))
  }

  @Test func whatALoaderMadeWhileValidatingIsTornDown() async throws {
    let tornDown = Tally()
    let root = FeaturesRoot { registry in
      registry.use(.cacheable({ _ in First(nil) }, teardown: { _ in tornDown.next() }))
      registry.use(
        .cacheable({ _ async in Second(nil) }, teardown: { _ in throw Offline() }))
    }
    let validation = await root.validate()
    #expect(tornDown.value == 1)  // the instance validation made holds nothing open afterwards
    // A teardown that throws while validating is a problem of the tree.
    #expect(validation.problems.map { $0.diagnostic.kind } == ["Offline"])
  }

  @Test func featuresOfAReleasedBranchValidateNothingAndSaySo() async throws {
    let kept = Lock<Features?>.make(nil)
    do {
      let root = FeaturesRoot { registry in
        registry.use(
          .cacheable { features in
            kept.withLock { $0 = features }
            return First(nil)
          })
      }
      _ = try synchronously { try root.instance(of: First.self) }
    }
    let validation = try await #require(kept.withLock { $0 }).validate()
    #expect(validation.problems.map { $0.diagnostic.kind } == ["FeaturesReleased"])
  }
}

private struct First: CacheableFeature {
  var value: @Sendable () -> Double
  init(_ next: (any Sendable)?) { value = { 1 } }
  init(seconds: Double) { value = { seconds } }
  static var placeholder: First { First(nil) }
}

private struct Second: CacheableFeature {
  init(_ next: (any Sendable)?) {}
  static var placeholder: Second { Second(nil) }
}

private struct Third: CacheableFeature {
  init(_ next: (any Sendable)?) {}
  static var placeholder: Third { Third(nil) }
}

/// A cacheable whose placeholder reports a call to `read` and returns 0.
private struct Meter: CacheableFeature {
  var read: @Sendable () -> Double
  static var placeholder: Meter { Meter(read: unimplemented("Meter.read", placeholder: 0)) }
}

private struct Reader: CacheableFeature {
  let user: String
  static var placeholder: Reader { Reader(user: "") }
}

private struct Ledger: CacheableFeature {
  typealias Context = Int
  let id: Int
  static var placeholder: Ledger { Ledger(id: 0) }
}

/// A user's error whose diagnostic reads like a placeholder call's.
private struct LooksUnimplemented: DiagnosticError {
  var diagnostic: Diagnostic { Diagnostic(kind: "FeatureUnimplemented", message: "Unimplemented: Greeter.greet") }
}

private struct Offline: DiagnosticError {
  var diagnostic: Diagnostic { Diagnostic(kind: "Offline", message: "the network is down") }
}

private enum JobScope: FeaturesScope {}
