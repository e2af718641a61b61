import ArborDemoFeatures
import ArborTesting
import Testing

// The demo's features (Sources/DemoFeatures), tested the way an app's tests would test them.

@Suite struct GreeterTests {
  @Test func liveGreetsTheSessionUser() throws {
    let printed = Lines()
    let features = TestFeatures()
    features.patch(\Printer.print, with: printed.print)
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let greeter: Greeter = try features.load(Greeter.live())
    try greeter.greet()
    #expect(printed.all == ["Hello ann"])
  }

  @Test func liveNeedsASession() throws {
    let features = TestFeatures()
    let load = { let _: Greeter = try features.load(Greeter.live()) }
    #expect(throws: FeaturesScopeContextUnavailable.self) { try load() }
  }

  @Test func mailingSendsHello() throws {
    let sent = Lines()
    let features = TestFeatures()
    features.patch(\Mailer.send, with: sent.print)
    let greeter: Greeter = try features.load(Greeter.mailing())
    try greeter.greet()
    #expect(sent.all == ["Hello"])
  }

  @Test func mailingPassesOnTheMailersError() throws {
    struct Offline: Error {}
    let features = TestFeatures()
    features.patch(\Mailer.send, with: { _ in throw Offline() })
    let greeter: Greeter = try features.load(Greeter.mailing())
    #expect(throws: Offline.self) { try greeter.greet() }
  }

  @Test func mailingWithoutAMailerThrowsTheMissingPatch() throws {
    let features = TestFeatures()
    let greeter: Greeter = try features.load(Greeter.mailing())
    // The thrown error is the one issue a test gets, when it reaches the test: nothing else is recorded.
    expectIssues([]) {
      let error = #expect(throws: FeatureUnimplemented.self) { try greeter.greet() }
      #expect(error.map { String(reflecting: $0) } == unimplementedIssue("Mailer.send", at: PlaceholderSite.mailer))
    }
  }
}

@Suite struct ConsolePrinterTests {
  @Test func readsTheClockForEveryLine() throws {
    let reads = Lines()
    let features = TestFeatures()
    features.patch(Clock.self) { clock in
      clock.now = {
        reads.append("now")
        return 42
      }
    }
    let printer: Printer = try features.load(Printer.console())
    printer.print("first")
    printer.print("second")
    #expect(reads.all == ["now", "now"])
  }

  @Test func withoutAClockItReportsTheMissingPatch() throws {
    let features = TestFeatures()
    let printer: Printer = try features.load(Printer.console())
    expectIssues([unimplementedIssue("Clock.now", at: PlaceholderSite.clock)]) {
      printer.print("line")
    }
  }
}

/// The demo's tree, patched only where a test needs to see what it does.
@Suite struct DemoTreeTests {
  @Test func twoSessionsGreetTheirOwnUsers() throws {
    let printed = Lines()
    let features = TestFeatures(DemoTree.root())
    features.patch(\Printer.print, with: printed.print)
    for user in ["ann", "bob"] {
      let session = try features.branch(SessionScope.self, context: Session(user: user))
      let first: Greeter = try session.instance()
      let second: Greeter = try session.instance()
      try first.greet()
      try second.greet()
    }
    #expect(printed.all == ["Hello ann", "Hello ann", "Hello bob", "Hello bob"])
  }

  @Test func theBrokenTreeFailsForWantOfAMailer() throws {
    let features = TestFeatures(DemoTree.broken())
    let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
    let error = #expect(throws: FeatureLoadingFailed.self) { let _: Greeter = try session.instance() }
    #expect(error?.diagnostic.causes.map(\.kind) == ["FeatureUndefined"])
  }

  @Test func aTestCanSupplyWhatTheBrokenTreeLacks() throws {
    let sent = Lines()
    let features = TestFeatures(DemoTree.broken())
    features.patch(\Mailer.send, with: sent.print)
    let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
    let greeter: Greeter = try session.instance()
    try greeter.greet()
    #expect(sent.all == ["Hello"])
  }

  @Test func eachSessionLoadsItsGreeterOnce() throws {
    let loads = Lines()
    let features = TestFeatures(DemoTree.root(onGreeterLoad: { loads.append("loaded") }))
    features.patch(\Printer.print, with: { _ in })
    for user in ["ann", "bob"] {
      let session = try features.branch(SessionScope.self, context: Session(user: user))
      for _ in 0..<2 { try session.instance(of: Greeter.self).greet() }
    }
    #expect(loads.all == ["loaded", "loaded"])
  }
}

@Suite struct GuestbookTests {
  @Test func printedSaysHowManySignedWhenItsSessionCloses() async throws {
    let printed = Lines()
    let features = TestFeatures()
    features.patch(\Printer.print, with: printed.print)
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let guestbook: Guestbook = try await features.load(Guestbook.printed())
    guestbook.sign("ann")
    guestbook.sign("bob")
    #expect(printed.all.isEmpty)
    try await features.close()
    #expect(printed.all == ["ann's guestbook closed with 2 signatures"])
    #expect(features.tornDown.map(\.description) == ["Guestbook (Guestbook.printed()) in Root"])
  }
}
