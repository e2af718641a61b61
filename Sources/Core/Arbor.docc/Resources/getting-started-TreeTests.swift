import ArborTesting
import Testing

@testable import Greetings

@Test func theTreeIsSound() async {
  await expectValidTree(Greetings.root()) { contexts in
    contexts.use(Session(user: "check"), for: SessionScope.self)
  }
}
