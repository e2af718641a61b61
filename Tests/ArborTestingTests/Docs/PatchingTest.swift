// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "Patching".
import ArborDemoFeatures
import ArborTesting
import Synchronization
import Testing

@Suite struct PatchingTest {
  @Test func everyWayToPatch() throws {
    let features = TestFeatures()

    // Replace a whole feature, of any kind.
    features.use(Clock(now: { 42 }))
    // Replace one instance of a cacheable with a context.
    features.use(Account(id: 7, balance: { 700 }), context: 7)
    // Patch one member; the feature's other members stay placeholders.
    features.patch(\Printer.print, with: { line in print(line) })
    // Patch with a closure that may change several members.
    features.patch(Account.self) { account in account.balance = { 0 } }
    // Give the context of a scope no branch carries.
    features.use(context: Session(user: "ann"), for: SessionScope.self)

    let clock: Clock = try features.instance()
    let account: Account = try features.instance(context: 7)
    #expect(clock.now() == 42)
    #expect(account.id == 7)
    #expect(account.balance() == 0)  // patches apply on top of `use`
    #expect(try features.context(for: SessionScope.self).user == "ann")
  }

  @Test func branchesKeepThePatches() throws {
    let features = TestFeatures()
    features.patch(\Clock.now, with: { 42 })
    let session = try features.branch(SessionScope.self, context: Session(user: "bob"))
    let clock: Clock = try session.instance()
    #expect(clock.now() == 42)
  }
}
