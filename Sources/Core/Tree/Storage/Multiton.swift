import Synchronization

/// The instances of one cacheable with a context (a multiton) in one branch, by context value.
///
/// Reading a loaded instance takes no lock: the context is hashed and probed in an open-addressing
/// table of immutable entries, published with release ordering. Loads are claimed in the branch's
/// ``LoadTable``; entries are inserted under `lock`, taken inside the branch's lock; the table only grows, and a grown table replaces the old one, which is
/// kept (as every entry is) until the multiton goes, since a reader may still be probing it.
///
/// A branch keeps each multiton in a unit of its storage (see ``UnitLayout``): one word per
/// multiton its scope registers, made on first use.
@usableFromInline
final class Multiton<F: Feature>: @unchecked Sendable {
  // Sendable: `table` is an atomic word; a table's buckets are atomic words pointing at immutable
  // entries; everything else that changes is in `lock`.

  /// One loaded instance and its context. Immutable.
  @usableFromInline
  final class KeyedInstance {
    @usableFromInline let hash: Int
    @usableFromInline let context: F.Context
    @usableFromInline let instance: F
    /// The context as its branch keys the instance: what a renewal retires it by.
    let key: ContextKey

    init(hash: Int, context: F.Context, instance: F, key: ContextKey) {
      self.hash = hash
      self.context = context
      self.instance = instance
      self.key = key
    }
  }

  /// A table's buckets: `mask + 1` words, each 0 or an unretained `KeyedInstance` (which `State.entries`
  /// keeps).
  @usableFromInline
  final class Table {
    @usableFromInline let mask: Int
    @usableFromInline let buckets: SharedWords

    init(capacity: Int) {
      mask = capacity - 1
      buckets = SharedWords(count: capacity)
    }
  }

  struct State {
    /// Every entry, keeping them alive for the tables' unretained words.
    var entries: [KeyedInstance] = []
    /// Every table made, the current one last: a reader may still probe an earlier one.
    var tables: [Table]
    /// Entries a renewal took out of the table, kept for the readers that may still probe them.
    var retired: [KeyedInstance] = []
    /// Whether a renewal took an entry out: its context's instances are then held by the branch.
    var hasRetired = false
  }

  /// The current table, unretained (`State.tables` keeps it).
  @usableFromInline let table: AtomicReference<Table>
  /// Hashes and compares contexts; `F.Context` is `Hashable` for every cacheable, which the
  /// generic signature cannot say (see ``ContextHashing``).
  @usableFromInline let hashing: ContextHashing<F.Context>
  let lock: Lock<State>

  init() {
    let first = Table(capacity: 8)
    table = AtomicReference(first)
    hashing = ContextHashing(of: F.self)
    lock = Lock.make(State(tables: [first]))
  }

  /// The instance loaded for `context`, if any. Lock-free.
  @inlinable
  func cached(_ context: F.Context) -> F? {
    let hash = hashing.hash(context)
    return table.loadStored().borrow { table in
      var index = hash & table.mask
      while true {
        let word = table.buckets[index].load(ordering: .acquiring)
        if word == 0 { return nil }
        let found = UncountedReference<KeyedInstance>(address: word).borrow {
          entry -> F? in
          entry.hash == hash && hashing.equal(entry.context, context) ? entry.instance : nil
        }
        if let found { return found }
        index = (index &+ 1) & table.mask
      }
    }
  }

  /// Publishes `instance` for `context`, which has none, keyed in its branch by `key`: call with
  /// `lock` held.
  func insert(_ instance: F, for context: F.Context, key: ContextKey, in state: inout State) {
    let entry = KeyedInstance(hash: hashing.hash(context), context: context, instance: instance, key: key)
    state.entries.append(entry)
    let current = state.tables[state.tables.count - 1]
    guard state.entries.count * 2 > current.mask + 1 else { return Self.place(entry, in: current) }
    // Grow before the table is half full, so that probes stay short and always end; publish the new
    // table only once it holds every entry.
    let grown = Table(capacity: (current.mask + 1) * 4)
    for existing in state.entries { Self.place(existing, in: grown) }
    state.tables.append(grown)
    table.store(grown)
  }

  /// Takes the entries of `contexts` out of the table, those that are there: call under the
  /// branch's lock, in which a renewal forgets their instances. One pass over the entries and one
  /// new table for them all, so a renewal costs time in proportion to the entries, not their square.
  ///
  /// - Returns: For each of `contexts`, whether its entry was there.
  func retire(_ contexts: [ContextKey]) -> [Bool] {
    // Matched by the keys the entries were inserted with: no context is cast to its type.
    var positions: [ContextKey: Int] = Dictionary(minimumCapacity: contexts.count)
    for (position, context) in contexts.enumerated() { positions[context] = position }
    var found = [Bool](repeating: false, count: contexts.count)
    lock.withLock { state in
      var kept: [KeyedInstance] = []
      kept.reserveCapacity(state.entries.count)
      for entry in state.entries {
        if let position = positions[entry.key] {
          found[position] = true
          state.retired.append(entry)
        } else {
          kept.append(entry)
        }
      }
      guard kept.count < state.entries.count else { return }
      state.entries = kept
      state.hasRetired = true
      // A table without them, published once it holds every other entry.
      let current = state.tables[state.tables.count - 1]
      let rebuilt = Table(capacity: current.mask + 1)
      for existing in state.entries { Self.place(existing, in: rebuilt) }
      state.tables.append(rebuilt)
      table.store(rebuilt)
    }
    return found
  }

  private static func place(_ entry: KeyedInstance, in table: Table) {
    var index = entry.hash & table.mask
    while table.buckets[index].load(ordering: .relaxed) != 0 { index = (index + 1) & table.mask }
    table.buckets[index].store(UncountedReference(entry).address, ordering: .releasing)
  }
}

/// Hashes and compares values of a type known to be `Hashable` only at run time: the context of a
/// cacheable, whose `Feature` conformance does not say it.
///
/// Made once per multiton (the dynamic casts), then called with no cast.
@usableFromInline
struct ContextHashing<Context>: Sendable {
  @usableFromInline let hash: @Sendable (Context) -> Int
  @usableFromInline let equal: @Sendable (Context, Context) -> Bool

  init<F: Feature>(of feature: F.Type) where F.Context == Context {
    // Every cacheable's `Context` is `Hashable`; multitons are cacheables.
    let cacheable = feature as! any CacheableFeature.Type
    (hash, equal) = Self.functions(cacheable)
  }

  private static func functions<C: CacheableFeature>(
    _: C.Type
  ) -> (@Sendable (Context) -> Int, @Sendable (Context, Context) -> Bool) {
    let hash: @Sendable (C.Context) -> Int = { $0.hashValue }
    let equal: @Sendable (C.Context, C.Context) -> Bool = { $0 == $1 }
    // `C` is `F`, so `C.Context` is `Context` and the functions' types are the same: only the
    // compiler does not know it.
    return (hash as! @Sendable (Context) -> Int, equal as! @Sendable (Context, Context) -> Bool)
  }
}

/// A multiton of any feature, as a renewal sees it.
protocol RenewableMultiton: AnyObject {
  /// Takes the entries of `contexts` out of the lock-free table, those that are there: call under
  /// the branch's lock.
  ///
  /// - Returns: For each of `contexts`, whether its entry was there.
  func retire(_ contexts: [ContextKey]) -> [Bool]
}

extension Multiton: RenewableMultiton {}
