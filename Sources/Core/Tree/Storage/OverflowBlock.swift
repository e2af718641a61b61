import Synchronization

/// Room for units (see ``UnitLayout``) given out after a branch was made: the units from
/// `firstUnit`, in give-out order, to the last one given out when the block was made, at the same
/// offsets as in the storage of branches made later.
///
/// A branch keeps a chain of them, newest first, made when one of its requests first needs a unit
/// its own storage has no room for. Blocks are immutable once published, and freed with the branch.
final class OverflowBlock {
  /// The first unit here, in give-out order.
  let firstUnit: Int
  /// The units after the last one here start at `firstUnit + unitCount`.
  let unitCount: Int
  /// Where the units here start and end, as offsets in a branch's storage.
  let start: Int
  let end: Int
  /// The older blocks.
  let next: OverflowBlock?
  /// The units here, at their offsets, as in the storage of a later branch.
  private let storage: BranchStorage

  /// A block for every unit of `layout` given out from `firstUnit` on, with their state and
  /// multiton words cleared.
  init(_ layout: UnitLayout, from firstUnit: Int, next: OverflowBlock?) {
    let count = layout.count
    self.firstUnit = firstUnit
    unitCount = count - firstUnit
    start = layout.unit(at: firstUnit).offset
    end = layout.byteCount(ofFirst: count)
    self.next = next
    storage = BranchStorage.allocateUnits(from: start, to: end)
    storage.initializeUnits(of: layout, from: firstUnit, count: unitCount)
  }

  deinit {
    storage.deallocateUnits(from: start)
  }

  /// The unit at `offset`, if it is in this block.
  func unit(at offset: Int) -> BranchStorage.Unit? {
    offset >= start && offset < end ? storage.unit(at: offset) : nil
  }

  /// Frees what the units here hold.
  func destroyUnits(_ layout: UnitLayout) {
    storage.destroyUnits(of: layout, from: firstUnit, count: unitCount)
  }
}
