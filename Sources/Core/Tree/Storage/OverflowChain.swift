import Synchronization

/// The overflow blocks of one branch, newest first: room for the units its scope gave out after
/// the branch was made (see ``OverflowBlock``).
///
/// The chain is one word of the branch's anchor (``BranchAnchor/overflow``): 0 before a request
/// needs a block, then the newest block, retained, which keeps the next. The branch owns it, and
/// frees it as it goes.
struct OverflowChain {
  let word: SharedWord

  /// The newest block, if one was made.
  var newest: OverflowBlock? { Self.block(word.load(ordering: .acquiring))?.object }

  private static func block(_ stored: UInt) -> UncountedReference<OverflowBlock>? {
    stored == 0 ? nil : UncountedReference(address: stored)
  }

  /// The unit at `offset`, beyond the branch's storage, whose own units end before unit
  /// `firstUnit` of `layout`.
  ///
  /// - Parameter giveOut: Whether to make a block for it when none has it, as a load does;
  ///   otherwise `nil` when none has it, since nothing was loaded in it.
  func unit(at offset: Int, giveOut: Bool, layout: UnitLayout, firstUnit: Int) -> BranchStorage.Unit? {
    while true {
      let stored = word.load(ordering: .acquiring)
      let head = Self.block(stored)
      var block = head?.object
      while let current = block {
        if let unit = current.unit(at: offset) { return unit }
        block = current.next
      }
      guard giveOut else { return nil }
      // Given out after the newest block: a block for every unit given out since.
      let first = head?.borrow { $0.firstUnit + $0.unitCount } ?? firstUnit
      let made = UncountedReference.retaining(OverflowBlock(layout, from: first, next: head?.object))
      let (published, _) = word.compareExchange(
        expected: stored, desired: made.address, ordering: .acquiringAndReleasing)
      if published {
        head?.release()  // the new block keeps it
      } else {
        made.release()  // another request made one first: look again
      }
    }
  }

  /// Frees what every block's units hold, and the blocks: as the branch goes, when no load can be
  /// in progress.
  func destroy(_ layout: UnitLayout) {
    guard let blocks = Self.block(word.load(ordering: .acquiring)) else { return }
    var block: OverflowBlock? = blocks.object
    while let current = block {
      current.destroyUnits(layout)
      block = current.next
    }
    blocks.release()
  }
}
