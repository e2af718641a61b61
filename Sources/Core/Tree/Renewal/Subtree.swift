/// A branch and its open descendants, parents first, held while a renewal runs through them.
final class Subtree: @unchecked Sendable {
  // Sendable: immutable.
  let branches: [Branch]
  /// The descendants this subtree holds, released with it.
  private let holds: [Branch]

  /// `branch` and its descendants that are open now; a closing branch tears its instances down
  /// itself.
  init(openFrom branch: Branch) {
    var branches: [Branch] = [branch]
    var holds: [Branch] = []
    var index = 0
    while index < branches.count {
      let parent = branches[index]
      index += 1
      var children: [Branch] = []
      parent.anchor.borrow { anchor in
        guard anchor.hasChildren else { return }
        anchor.withChildren {
          anchor.forEachChild { child in
            if !child.isClosed, let held = child.anchor.borrow({ $0.holdIfAlive() }) { children.append(held) }
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
