/// A branch and its descendants, parents first, held while a renewal runs: the open ones, with
/// their open descendants, and the closing ones, whose close the renewal may wait for.
final class Subtree: Sendable {
  let branches: [Branch]
  private let holds: [Branch]

  init(from branch: Branch) {
    var branches: [Branch] = [branch]
    var holds: [Branch] = []
    var index = 0
    while index < branches.count {
      let parent = branches[index]
      index += 1
      // A closing branch's descendants close with it.
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
      holds += children
      branches += children
    }
    self.branches = branches
    self.holds = holds
  }

  deinit {
    for branch in holds { branch.anchor.borrow { $0.release() } }
  }
}
