import ArborTesting
import Testing

@Test func theTreeIsSound() async {
  await expectValidTree(AppTree.root()) { contexts in
    contexts.use(Session(user: "check"), for: SessionScope.self)
  }
}
