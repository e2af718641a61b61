/// A branch and its descendants, parents first, each below the first held while a renewal runs; a
/// closing branch's descendants are left to its close, which the renewal may wait for.
final class Subtree: Sendable {
  let branches: [Branch]

  init(from branch: Branch) {
    var branches: [Branch] = [branch]
    var index = 0
    while index < branches.count {
      let parent = branches[index]
      index += 1
      guard !parent.isClosed || index == 1 else { continue }
      var children: [Branch] = []
      parent.anchor.borrow { anchor in
        guard anchor.hasChildren else { return }
        anchor.withChildren {
          anchor.forEachChild { child in
            if let held = child.anchor.borrow({ $0.holdIfAlive() }) { children.append(held) }
          }
        }
      }
      branches += children
    }
    self.branches = branches
  }

  deinit {
    for branch in branches.dropFirst() { branch.anchor.borrow { $0.release() } }
  }
}
