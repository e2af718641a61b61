import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A reference to an object that does not count: it keeps nothing alive, and is valid only while
/// something else does. Each holder of one says what keeps its object alive.
///
/// With ``AtomicReference`` and ``ThreadLocalReference``, the one place where Arbor turns objects
/// into addresses and back: the tree's hot paths walk branches, anchors and tables through
/// references like these, so that a read touches no reference count.
@usableFromInline
package struct UncountedReference<Object: AnyObject>: @unchecked Sendable {
  // Sendable: an address. What may be done with the object across threads is the object's rule.
  @usableFromInline let unmanaged: Unmanaged<Object>

  /// A reference to `object`, which the caller keeps alive.
  @inlinable @inline(__always)
  package init(_ object: Object) {
    unmanaged = .passUnretained(object)
  }

  @inlinable @inline(__always)
  init(_ unmanaged: Unmanaged<Object>) {
    self.unmanaged = unmanaged
  }

  /// A reference to `object` that carries one count of it, which its receiver takes over and
  /// gives back with ``release()``.
  @inlinable
  static func retaining(_ object: Object) -> Self {
    Self(Unmanaged.passRetained(object))
  }

  /// The reference at `address` (not 0), which ``address`` made: the one tagged words and atomic
  /// words hold.
  @inlinable @inline(__always)
  init(address: UInt) {
    unmanaged = Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
  }

  /// The reference at `address`, or `nil` when it is 0.
  @inlinable @inline(__always)
  static func ifAny(at address: UInt) -> Self? {
    address == 0 ? nil : Self(address: address)
  }

  /// The object's address: never 0, and aligned to 16 bytes, so that its low bits are free for
  /// tags.
  @inlinable @inline(__always)
  var address: UInt { UInt(bitPattern: unmanaged.toOpaque()) }

  /// The object, as a counted reference the caller owns from here on.
  @inlinable @inline(__always)
  package var object: Object { unmanaged.takeUnretainedValue() }

  /// Runs `body` with the object, touching no count: the caller guarantees that it stays alive.
  @inlinable @inline(__always)
  func borrow<R>(_ body: (Object) throws -> R) rethrows -> R {
    try unmanaged._withUnsafeGuaranteedRef(body)
  }

  /// Adds a count to the object.
  @inlinable
  func retain() {
    _ = unmanaged.retain()
  }

  /// Gives back one count of the object, possibly its last.
  @inlinable
  func release() {
    unmanaged.release()
  }

  /// The same object, as the class the caller knows it to be: checked in debug builds only. A
  /// dynamic cast to an instance of a generic class looks the class's metadata up first, which
  /// costs a teardown's recording or a wait many times what it does.
  @inlinable @inline(__always)
  func known<Known: AnyObject>(as type: Known.Type) -> UncountedReference<Known> {
    assert(object is Known, "\(Object.self) is not a \(Known.self)")
    return UncountedReference<Known>(address: address)
  }
}

extension UncountedReference where Object == AnyObject {
  /// `object`, as the class the caller knows it to be (see ``known(as:)``).
  @inlinable @inline(__always)
  static func cast<Known: AnyObject>(_ object: AnyObject, to type: Known.Type) -> Known {
    UncountedReference(object).known(as: type).object
  }
}

extension UncountedReference: Equatable {
  @inlinable
  package static func == (lhs: Self, rhs: Self) -> Bool { lhs.address == rhs.address }
}

/// A word that holds a reference to an object, or none, read and written atomically: how Arbor
/// publishes an object to readers that take no lock.
///
/// Whether the word owns a count of its object is its holder's rule: a word filled once by
/// ``storeIfNone(_:)`` owns one, which its holder gives back with ``releaseStored()`` as it goes; a
/// word that points at an object something else keeps (a table's current buckets) owns none.
@usableFromInline
struct AtomicReference<Object: AnyObject>: ~Copyable, @unchecked Sendable {
  // Sendable: an atomic word. What may be done with the object across threads is the object's rule.
  @usableFromInline let word: Atomic<UInt>

  /// A word that holds `object` (without a count), or none.
  init(_ object: Object? = nil) {
    word = Atomic(object.map { UncountedReference($0).address } ?? 0)
  }

  /// The object the word holds, if any (an acquiring load).
  @inlinable @inline(__always)
  func load() -> UncountedReference<Object>? {
    UncountedReference.ifAny(at: word.load(ordering: .acquiring))
  }

  /// The object the word holds, which the caller knows it holds (an acquiring load).
  @inlinable @inline(__always)
  func loadStored() -> UncountedReference<Object> {
    UncountedReference(address: word.load(ordering: .acquiring))
  }

  /// Makes the word hold `object`, without a count (a releasing store).
  func store(_ object: Object) {
    word.store(UncountedReference(object).address, ordering: .releasing)
  }

  /// The object the word holds; if it holds none, `make()`'s, which the word keeps a count of.
  /// When two callers race, the first to store wins and the other's object is dropped.
  func storeIfNone(_ make: () -> Object) -> Object {
    if let existing = load() { return existing.object }
    let made = UncountedReference.retaining(make())
    let (stored, found) = word.compareExchange(expected: 0, desired: made.address, ordering: .acquiringAndReleasing)
    if stored { return made.object }
    made.release()
    return UncountedReference<Object>(address: found).object
  }

  /// Replaces `expected` (or none) with `desired`, which the word keeps a count of from then on, if
  /// the word still holds `expected`.
  ///
  /// - Returns: Whether it did; if not, the caller still owns `desired`'s count.
  func replace(_ expected: UncountedReference<Object>?, with desired: UncountedReference<Object>) -> Bool {
    word.compareExchange(expected: expected?.address ?? 0, desired: desired.address, ordering: .acquiringAndReleasing)
      .exchanged
  }

  /// Gives back the count the word owns of its object, if it holds one: as its holder goes.
  func releaseStored() {
    load()?.release()
  }
}

/// A reference that each thread keeps for itself, made on the thread's first use and released
/// when the thread exits.
///
/// Its key is a word the caller keeps in a static constant (`Atomic<UInt>(0)`), which is
/// initialised statically: reading it costs no `swift_once` call, as a lazy global would.
@usableFromInline
enum ThreadLocalReference<Object: AnyObject> {
  /// This thread's object, made by `make` the first time: the thread keeps it alive as long as it
  /// runs, and only this thread uses the reference.
  ///
  /// - Parameter key: The thread-specific key plus one, 0 until the first thread makes it.
  @inlinable @inline(__always)
  static func current(keyedBy key: borrowing Atomic<UInt>, _ make: () -> Object) -> UncountedReference<Object> {
    let stored = key.load(ordering: .acquiring)
    if stored != 0, let existing = pthread_getspecific(pthread_key_t(truncatingIfNeeded: stored &- 1)) {
      return UncountedReference(Unmanaged.fromOpaque(existing))
    }
    return makeCurrent(keyedBy: key, make)
  }

  @usableFromInline @inline(never)
  static func makeCurrent(keyedBy key: borrowing Atomic<UInt>, _ make: () -> Object) -> UncountedReference<Object> {
    let threadKey = self.threadKey(key)
    if let existing = pthread_getspecific(threadKey) { return UncountedReference(Unmanaged.fromOpaque(existing)) }
    let object = UncountedReference.retaining(make())
    precondition(
      pthread_setspecific(threadKey, object.unmanaged.toOpaque()) == 0, "Arbor could not set its thread-local state")
    return object
  }

  /// The key, made by the first thread that needs it: when two race, the first to publish wins and
  /// the other deletes its own.
  private static func threadKey(_ key: borrowing Atomic<UInt>) -> pthread_key_t {
    let published = key.load(ordering: .acquiring)
    if published != 0 { return pthread_key_t(truncatingIfNeeded: published &- 1) }
    var made = pthread_key_t()
    #if canImport(Darwin)
      let destructor: @convention(c) (UnsafeMutableRawPointer) -> Void = { object in
        Unmanaged<AnyObject>.fromOpaque(object).release()
      }
    #else
      let destructor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
        if let object { Unmanaged<AnyObject>.fromOpaque(object).release() }
      }
    #endif
    precondition(pthread_key_create(&made, destructor) == 0, "Arbor could not create its thread-local key")
    let (stored, found) = key.compareExchange(expected: 0, desired: UInt(made) &+ 1, ordering: .acquiringAndReleasing)
    if stored { return made }
    pthread_key_delete(made)
    return pthread_key_t(truncatingIfNeeded: found &- 1)
  }
}
