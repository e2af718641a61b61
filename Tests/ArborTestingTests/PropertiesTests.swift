import ArborDemoFeatures
import ArborTesting
import Testing

enum AdminScope: FeaturesScope {}

enum RequestTimeout: FeaturesProperty {
  static var defaultValue: Duration { .seconds(30) }
}

/// Test containers set properties like real trees; misuse is reported with its site.
@Suite struct PropertiesTests {
  struct Holder: CacheableFeature {
    var features: Features
    static var placeholder: Holder { fatalError("not used") }
  }

  struct Timed: DisposableFeature {
    var timeout: Duration
    static var placeholder: Timed { Timed(timeout: .zero) }
  }

  static func root() -> Features {
    FeaturesRoot { registry in
      registry.set(RequestTimeout.self, to: .seconds(10))
      registry.defineScope(SessionScope.self) { registry in
        registry.set(RequestTimeout.self, to: .seconds(5))
        registry.use(.cacheable { features in Holder(features: features) })
        registry.use(.disposable { features in Timed(timeout: features[RequestTimeout.self]) })
      }
    }
  }

  @Test func aTestContainerSetsPropertiesLikeARealTree() throws {
    let features = TestFeatures()
    #expect(features[RequestTimeout.self] == .seconds(30))
    features[RequestTimeout.self] = .seconds(2)
    let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
    let other = try features.branch(SessionScope.self, context: Session(user: "bob"))
    session[RequestTimeout.self] = .seconds(1)
    #expect(session[RequestTimeout.self] == .seconds(1))
    #expect(other[RequestTimeout.self] == .seconds(2))
    #expect(features[RequestTimeout.self] == .seconds(2))
    // A loader under test reads the container's value.
    let timed: Timed = try session.load(.disposable { features in Timed(timeout: features[RequestTimeout.self]) })
    #expect(timed.timeout == .seconds(1))
  }

  @Test func testContainersAreIndependent() {
    let first = TestFeatures()
    let second = TestFeatures()
    first[RequestTimeout.self] = .seconds(1)
    #expect(second[RequestTimeout.self] == .seconds(30))
  }

  @Test func aCopySeesTheTreesValuesAndItsSetsNeverReachTheOriginal() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(TestFeatures(root)[RequestTimeout.self] == .seconds(10))  // the registry's
    root[RequestTimeout.self] = .seconds(8)
    let copy = TestFeatures(session)
    #expect(copy[RequestTimeout.self] == .seconds(8))  // the root's set, copied
    copy[RequestTimeout.self] = .seconds(1)
    #expect(copy[RequestTimeout.self] == .seconds(1))
    #expect(try copy.instance(of: Timed.self).timeout == .seconds(1))  // the tree's loader, the copy's value
    #expect(session[RequestTimeout.self] == .seconds(8))
    #expect(root[RequestTimeout.self] == .seconds(8))
    #expect(try session.instance(of: Timed.self).timeout == .seconds(8))
    root[RequestTimeout.self] = .seconds(9)  // nor do the original's later sets reach the copy
    #expect(copy[RequestTimeout.self] == .seconds(1))
    #expect(try copy.branch(SessionScope.self, context: Session(user: "bob"))[RequestTimeout.self] == .seconds(1))
  }

  @Test func aTestContainerIsObservedLikeARealTree() async throws {
    let features = TestFeatures()
    let values = features.observe(RequestTimeout.self)
    features[RequestTimeout.self] = .seconds(3)
    var iterator = values.makeAsyncIterator()
    #expect(await iterator.next() == .seconds(30))
    #expect(await iterator.next() == .seconds(3))
  }

  /// Installs ArborTesting's reporter, as any use of ArborTesting does: the misuse these tests make
  /// uses nothing else of it, and its report must reach the reporter, whichever test runs first.
  func installReporter() {
    _ = TestFeatures()
  }

  /// Features a loader kept, after their branch was released.
  func releasedFeatures() throws -> Features {
    installReporter()
    let session = try Self.root().branch(SessionScope.self, context: Session(user: "ann"))
    return try session.instance(of: Holder.self).features
  }

  func released(_ outcome: String, line: Int) -> String {
    """
    FeaturesReleased: RequestTimeout \(outcome): the branch of these features was released
    ├─ requested at: ArborTestingTests/PropertiesTests.swift:\(line)
    └─ fix: keep the Features of the branch (or of a branch below it) while instances loaded from it are in use
    """
  }

  @Test func aSetThroughReleasedFeaturesChangesNothingAndIsReported() throws {
    let features = try releasedFeatures()
    let line = #line + 2
    expectIssues([released("was not set", line: line)]) {
      features[RequestTimeout.self] = .seconds(1)
    }
  }

  @Test func aReadThroughReleasedFeaturesIsTheDefaultAndIsReported() throws {
    let features = try releasedFeatures()
    var timeout: Duration?
    let line = #line + 2
    expectIssues([released("reads its default value", line: line)]) {
      timeout = features[RequestTimeout.self]
    }
    #expect(timeout == .seconds(30))
  }

  @Test func observingThroughReleasedFeaturesFinishesAtOnceAndIsReported() async throws {
    let features = try releasedFeatures()
    var values: AsyncStream<Duration>?
    let line = #line + 2
    expectIssues([released("cannot be observed", line: line)]) {
      values = features.observe(RequestTimeout.self)
    }
    var iterator = try #require(values).makeAsyncIterator()
    #expect(await iterator.next() == nil)
  }

  struct Handler {
    static let declaration = #line + 1
    @Property(RequestTimeout.self) var timeout
  }

  @Test func thePropertyWrapperReadsTheCurrentFeaturesOnEveryRead() throws {
    let session = try Self.root().branch(SessionScope.self, context: Session(user: "ann"))
    let handler = session.withCurrent { Handler() }
    #expect(handler.timeout == .seconds(5))
    session[RequestTimeout.self] = .seconds(1)
    #expect(handler.timeout == .seconds(1))
    #expect(try handler.$timeout.value() == .seconds(1))
    let late = Handler()  // made outside: reads the features current where it is read
    #expect(session.withCurrent { late.timeout } == .seconds(1))
    let held = Property(RequestTimeout.self, in: TestFeatures())
    #expect(held.wrappedValue == .seconds(30))
  }

  @Test func thePropertyWrapperOutsideAnyFeaturesReadsTheDefaultAndReportsIt() throws {
    installReporter()
    let handler = Handler()
    var timeout: Duration?
    expectIssues([
      """
      CurrentFeaturesUndefined: no current features in this task
      ├─ requested at: ArborTestingTests/PropertiesTests.swift:\(Handler.declaration)
      └─ fix: run this code inside features.withCurrent { ... } (a detached task does not inherit it),
              or pass the Features explicitly
      """
    ]) {
      timeout = handler.timeout
    }
    #expect(timeout == .seconds(30))
    #expect(throws: CurrentFeaturesUndefined.self) { try handler.$timeout.value() }
  }

  @Test func childTasksReadTheCurrentFeaturesThroughTheWrapper() async throws {
    let session = try Self.root().branch(SessionScope.self, context: Session(user: "ann"))
    session[RequestTimeout.self] = .seconds(2)
    let read = await session.withCurrent {
      async let child = Handler().timeout
      let unstructured = Task { Handler().timeout }
      return [await child, await unstructured.value]
    }
    #expect(read == [.seconds(2), .seconds(2)])
  }

  /// A branch a loader made through its features, kept by the instance: it does not keep its parent.
  struct Tethered: CacheableFeature {
    var branch: Features
    static var placeholder: Tethered { fatalError("not used") }
  }

  @Test func aBranchMadeByALoaderReadsItsParentsValuesWhileTheParentLives() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { features in Tethered(branch: try features.branch(AdminScope.self)) })
        registry.defineScope(AdminScope.self) { _ in }
      }
    }
    var session: Features? = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let tethered = try session!.instance(of: Tethered.self).branch
    session![RequestTimeout.self] = .seconds(3)
    #expect(tethered[RequestTimeout.self] == .seconds(3))
    tethered[RequestTimeout.self] = .seconds(4)
    #expect(tethered[RequestTimeout.self] == .seconds(4))
    #expect(session![RequestTimeout.self] == .seconds(3))
    session = nil
    installReporter()
    var timeout: Duration?
    let line = #line + 2
    expectIssues([released("reads its default value", line: line)]) {
      timeout = tethered[RequestTimeout.self]
    }
    #expect(timeout == .seconds(30))
  }

  @Test func thePropertyWrapperObserves() async throws {
    let features = TestFeatures()
    let handler = features.withCurrent { Handler() }
    var iterator = try handler.$timeout.observe().makeAsyncIterator()
    features[RequestTimeout.self] = .seconds(4)
    #expect(await iterator.next() == .seconds(30))
    #expect(await iterator.next() == .seconds(4))
  }
}
