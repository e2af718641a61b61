import ArborTesting
import Testing

@testable import Greetings

@Test func theTreeIsSound() async {
  await expectValidTree(AppTree.root()) { contexts in
    contexts.use(Session(user: "check"), for: SessionScope.self)
  }
}
