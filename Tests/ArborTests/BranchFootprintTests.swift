import Arbor
import Testing

#if canImport(Glibc)
  /// glibc's `malloc_usable_size`, which its Swift module does not import (it is in `malloc.h`): one
  /// pointer in, one word out, which the Swift calling convention passes as C does.
  @_silgen_name("malloc_usable_size")
  private func mallocUsableSize(_ pointer: UnsafeRawPointer) -> Int

  /// What a live branch costs in memory: the sizes `malloc` gives its objects, measured as case f
  /// of the benchmarks keeps them (a request scope with an `Int` context and five cacheables whose
  /// instances are one closure each).
  @Suite struct BranchFootprintTests {
    /// One of the five cacheables of a request, one per tag: an instance is one closure.
    struct Request<Tag>: CacheableFeature {
      var value: @Sendable () -> Int
      static var placeholder: Self { Self(value: { 0 }) }
    }
    enum T0 {}
    enum T1 {}
    enum T2 {}
    enum T3 {}
    enum T4 {}

    /// A loader of the request's cacheable of `tag`, whose closure reads the request's context.
    static func loader<Tag>(_ tag: Tag.Type) -> FeatureLoader {
      .cacheable { features in
        let id = try features.context(for: RequestScope.self)
        return Request<Tag>(value: { id })
      }
    }

    /// The branch object fits a 160-byte chunk (152 usable bytes), one malloc size class below the
    /// 176-byte chunk its 168 bytes took while it kept the overflow word and a word-wide table
    /// shift; the anchor, which keeps the overflow word where the children's lock was, is no
    /// larger.
    ///
    /// `malloc` may hand a request a free chunk somewhat larger than it asked for (one too small to
    /// split), as other tests running meanwhile leave them, so a single object's usable size can
    /// be one class up. The smallest over many live branches is the class their size asks for.
    @Test func aRequestBranchKeepsItsMallocSizeClasses() throws {
      let root = FeaturesRoot { registry in
        registry.defineScope(RequestScope.self) { registry in
          registry.use(Self.loader(T0.self))
          registry.use(Self.loader(T1.self))
          registry.use(Self.loader(T2.self))
          registry.use(Self.loader(T3.self))
          registry.use(Self.loader(T4.self))
        }
      }
      // The first branch gives the units out; the later ones have room for all five in their own
      // storage, and are kept alive together.
      var requests: [Features] = []
      var branchSizes: [Int] = []
      var anchorSizes: [Int] = []
      for id in 0..<65 {
        let request = try root.branch(RequestScope.self, context: id)
        #expect(try request.instance(of: Request<T0>.self).value() == id)
        #expect(try request.instance(of: Request<T1>.self).value() == id)
        #expect(try request.instance(of: Request<T2>.self).value() == id)
        #expect(try request.instance(of: Request<T3>.self).value() == id)
        #expect(try request.instance(of: Request<T4>.self).value() == id)
        requests.append(request)
        guard id > 0 else { continue }
        let (branch, anchor) = try request.withBranch(at: SourceLocation(fileID: #fileID, line: #line)) {
          let addresses = $0.objectAddresses
          return (
            mallocUsableSize(UnsafeRawPointer(bitPattern: addresses.branch)!),
            mallocUsableSize(UnsafeRawPointer(bitPattern: addresses.anchor)!)
          )
        }
        branchSizes.append(branch)
        anchorSizes.append(anchor)
      }
      #expect(branchSizes.min()! <= 152)
      // 48 bytes before the storage, whose header word, five units of a state word and a closure,
      // and the context take 8 + 5 × 24 + 8.
      #expect(anchorSizes.min()! <= 184)
    }
  }
#endif
