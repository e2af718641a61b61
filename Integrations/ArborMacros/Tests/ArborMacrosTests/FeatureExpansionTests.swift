import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Feature` generates for each shape of member: the placeholder calls `Arbor.unimplemented`
/// with the member's name and line, and the initialiser takes every stored member.
@Suite struct FeatureExpansionTests {
  @Test func closureMembersOfEveryEffect() {
    expectExpansion(
      """
      @Feature
      struct Store: CacheableFeature {
        var load: @Sendable () -> Void
        var fetch: @Sendable () async -> Void
        var save: @Sendable (String) throws -> Void
        var query: @Sendable (String) async throws -> [String]
        var count: @Sendable () async -> Int = { 0 }
        var check: () -> Bool = { false }
      }
      """,
      expandedSource: """
        struct Store: CacheableFeature {
          var load: @Sendable () -> Void
          var fetch: @Sendable () async -> Void
          var save: @Sendable (String) throws -> Void
          var query: @Sendable (String) async throws -> [String]
          var count: @Sendable () async -> Int = { 0 }
          var check: () -> Bool = { false }

          /// Creates the feature from an implementation of each member.
          init(
            load: @escaping @Sendable () -> Void,
            fetch: @escaping @Sendable () async -> Void,
            save: @escaping @Sendable (String) throws -> Void,
            query: @escaping @Sendable (String) async throws -> [String],
            count: @escaping @Sendable () async -> Int,
            check: @escaping () -> Bool
          ) {
            self.load = load
            self.fetch = fetch
            self.save = save
            self.query = query
            self.count = count
            self.check = check
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              load: Arbor.unimplemented("Store.load", line: 3),
              fetch: Arbor.unimplemented("Store.fetch", line: 4),
              save: Arbor.unimplemented("Store.save", line: 5),
              query: Arbor.unimplemented("Store.query", line: 6),
              count: Arbor.unimplemented("Store.count", placeholder: 0, line: 7),
              check: Arbor.unimplemented("Store.check", placeholder: false, line: 8)
            )
          }
        }
        """)
  }

  @Test func typedThrowsTakeTheDefaultAsAValueMemberDoes() {
    // `unimplemented` throws `FeatureUnimplemented`, which a typed throw cannot carry: the
    // placeholder reports and returns the default instead. `throws(any Error)` is plain `throws`.
    expectExpansion(
      """
      @Feature
      struct Parser: DisposableFeature {
        var parse: @Sendable (String) throws(ParseError) -> Int = { _ in 0 }
        var validate: @Sendable (String) throws(ParseError) -> Void
        var any: @Sendable () throws(any Error) -> Int
        var never: @Sendable () throws(Never) -> Int = { 1 }
      }
      """,
      expandedSource: """
        struct Parser: DisposableFeature {
          var parse: @Sendable (String) throws(ParseError) -> Int = { _ in 0 }
          var validate: @Sendable (String) throws(ParseError) -> Void
          var any: @Sendable () throws(any Error) -> Int
          var never: @Sendable () throws(Never) -> Int = { 1 }

          /// Creates the feature from an implementation of each member.
          init(
            parse: @escaping @Sendable (String) throws(ParseError) -> Int,
            validate: @escaping @Sendable (String) throws(ParseError) -> Void,
            any: @escaping @Sendable () throws(any Error) -> Int,
            never: @escaping @Sendable () throws(Never) -> Int
          ) {
            self.parse = parse
            self.validate = validate
            self.any = any
            self.never = never
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              parse: Arbor.unimplemented("Parser.parse", placeholder: 0, line: 3),
              validate: Arbor.unimplemented("Parser.validate", line: 4),
              any: Arbor.unimplemented("Parser.any", line: 5),
              never: Arbor.unimplemented("Parser.never", placeholder: 1, line: 6)
            )
          }
        }
        """)
  }

  @Test func labelledInoutVariadicAndEscapingClosureParameters() {
    expectExpansion(
      """
      @Feature
      struct Editor: DisposableFeature {
        var edit: @Sendable (_ text: inout String, _ times: Int) -> Void
        var join: @Sendable (_ parts: String...) -> String = { _ in "" }
        var onChange: @Sendable (_ handler: @escaping @Sendable (String) -> Void) -> Void
        var lookup: @Sendable (_ key: String, _ fallback: (() -> String)?) throws -> String
      }
      """,
      expandedSource: """
        struct Editor: DisposableFeature {
          var edit: @Sendable (_ text: inout String, _ times: Int) -> Void
          var join: @Sendable (_ parts: String...) -> String = { _ in "" }
          var onChange: @Sendable (_ handler: @escaping @Sendable (String) -> Void) -> Void
          var lookup: @Sendable (_ key: String, _ fallback: (() -> String)?) throws -> String

          /// Creates the feature from an implementation of each member.
          init(
            edit: @escaping @Sendable (_ text: inout String, _ times: Int) -> Void,
            join: @escaping @Sendable (_ parts: String...) -> String,
            onChange: @escaping @Sendable (_ handler: @escaping @Sendable (String) -> Void) -> Void,
            lookup: @escaping @Sendable (_ key: String, _ fallback: (() -> String)?) throws -> String
          ) {
            self.edit = edit
            self.join = join
            self.onChange = onChange
            self.lookup = lookup
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              edit: Arbor.unimplemented("Editor.edit", line: 3),
              join: Arbor.unimplemented("Editor.join", placeholder: "", line: 4),
              onChange: Arbor.unimplemented("Editor.onChange", line: 5),
              lookup: Arbor.unimplemented("Editor.lookup", line: 6)
            )
          }
        }
        """)
  }

  @Test func optionalClosuresAreNotEscapingParameters() {
    // An optional closure is escaping already: `@escaping` on it does not compile.
    expectExpansion(
      """
      @Feature
      struct Hooks: StaticFeature {
        var willLoad: (@Sendable () -> Void)?
        var transform: (@Sendable (Int) -> Int)? = { _ in 0 }
        var onError: ((any Error) throws -> Void)!
      }
      """,
      expandedSource: """
        struct Hooks: StaticFeature {
          var willLoad: (@Sendable () -> Void)?
          var transform: (@Sendable (Int) -> Int)? = { _ in 0 }
          var onError: ((any Error) throws -> Void)!

          /// Creates the feature from an implementation of each member.
          init(
            willLoad: (@Sendable () -> Void)?,
            transform: (@Sendable (Int) -> Int)?,
            onError: ((any Error) throws -> Void)!
          ) {
            self.willLoad = willLoad
            self.transform = transform
            self.onError = onError
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              willLoad: Arbor.unimplemented("Hooks.willLoad", line: 3),
              transform: Arbor.unimplemented("Hooks.transform", placeholder: 0, line: 4),
              onError: Arbor.unimplemented("Hooks.onError", line: 5)
            )
          }
        }
        """)
  }

  @Test func valueMembersTakeTheirDefaultAndConstantsAreLeftOut() {
    // A `let` with a value is a constant: the initialiser cannot set it and the placeholder has it.
    // Computed, static and lazy members are not stored per instance.
    expectExpansion(
      """
      @Feature
      struct Session: CacheableFeature {
        var user: String = ""
        var limits: [String: Int] = [:]
        let version = 2
        var serve: @Sendable () -> Int = { 0 }
        var name: String { user }
        static var shared: Int = 0
        lazy var cache: [Int] = []
      }
      """,
      expandedSource: """
        struct Session: CacheableFeature {
          var user: String = ""
          var limits: [String: Int] = [:]
          let version = 2
          var serve: @Sendable () -> Int = { 0 }
          var name: String { user }
          static var shared: Int = 0
          lazy var cache: [Int] = []

          /// Creates the feature from an implementation of each member.
          init(
            user: String,
            limits: [String: Int],
            serve: @escaping @Sendable () -> Int
          ) {
            self.user = user
            self.limits = limits
            self.serve = serve
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              user: "",
              limits: [:],
              serve: Arbor.unimplemented("Session.serve", placeholder: 0, line: 6)
            )
          }
        }
        """)
  }

  @Test func aLetClosureIsInitialisedAndWarnsThatTestsCannotPatchIt() {
    expectExpansion(
      """
      @Feature
      struct Mailer: DisposableFeature {
        let send: @Sendable (String) throws -> Void
      }
      """,
      expandedSource: """
        struct Mailer: DisposableFeature {
          let send: @Sendable (String) throws -> Void

          /// Creates the feature from an implementation of each member.
          init(
            send: @escaping @Sendable (String) throws -> Void
          ) {
            self.send = send
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              send: Arbor.unimplemented("Mailer.send", line: 3)
            )
          }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'send' is a 'let', so a test cannot patch it with 'patch(\\.send, with:)'; make it a 'var'",
          line: 3, column: 3, severity: .warning, fixIts: [FixItSpec(message: "Make 'send' a 'var'")])
      ],
      applyFixIts: ["Make 'send' a 'var'"],
      fixedSource: """
        @Feature
        struct Mailer: DisposableFeature {
          var send: @Sendable (String) throws -> Void
        }
        """)
  }

  @Test func accessLevelsFollowTheStruct() {
    expectExpansion(
      """
      @Feature
      public struct Printer: DisposableFeature {
        public var print: @Sendable (String) -> Void
      }
      @Feature
      package struct Logger: StaticFeature {
        package var log: @Sendable (String) -> Void
      }
      @Feature
      private struct Tracer: StaticFeature {
        var trace: @Sendable (String) -> Void
      }
      """,
      expandedSource: """
        public struct Printer: DisposableFeature {
          public var print: @Sendable (String) -> Void

          /// Creates the feature from an implementation of each member.
          public init(
            print: @escaping @Sendable (String) -> Void
          ) {
            self.print = print
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          public static var placeholder: Self {
            Self(
              print: Arbor.unimplemented("Printer.print", line: 3)
            )
          }
        }
        package struct Logger: StaticFeature {
          package var log: @Sendable (String) -> Void

          /// Creates the feature from an implementation of each member.
          package init(
            log: @escaping @Sendable (String) -> Void
          ) {
            self.log = log
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          package static var placeholder: Self {
            Self(
              log: Arbor.unimplemented("Logger.log", line: 7)
            )
          }
        }
        private struct Tracer: StaticFeature {
          var trace: @Sendable (String) -> Void

          /// Creates the feature from an implementation of each member.
          fileprivate init(
            trace: @escaping @Sendable (String) -> Void
          ) {
            self.trace = trace
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          fileprivate static var placeholder: Self {
            Self(
              trace: Arbor.unimplemented("Tracer.trace", line: 11)
            )
          }
        }
        """)
  }

  @Test func aGenericFeatureBuildsItsPlaceholderWithSelf() {
    expectExpansion(
      """
      @Feature
      public struct Cache<Key: Hashable & Sendable, Value: Sendable>: CacheableFeature {
        public var get: @Sendable (Key) -> Value? = { _ in nil }
        public var set: @Sendable (Key, Value) -> Void
      }
      """,
      expandedSource: """
        public struct Cache<Key: Hashable & Sendable, Value: Sendable>: CacheableFeature {
          public var get: @Sendable (Key) -> Value? = { _ in nil }
          public var set: @Sendable (Key, Value) -> Void

          /// Creates the feature from an implementation of each member.
          public init(
            get: @escaping @Sendable (Key) -> Value?,
            set: @escaping @Sendable (Key, Value) -> Void
          ) {
            self.get = get
            self.set = set
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          public static var placeholder: Self {
            Self(
              get: Arbor.unimplemented("Cache.get", placeholder: nil, line: 3),
              set: Arbor.unimplemented("Cache.set", line: 4)
            )
          }
        }
        """)
  }

  @Test func commentsAndAttributesAroundMembersStayWhereTheyAre() {
    // A trailing line comment must not reach the generated parameter list, where it would comment
    // out the rest of the line.
    expectExpansion(
      """
      @Feature
      struct Clock: StaticFeature {
        /// Now, in seconds.
        @available(*, deprecated, message: "use instant")
        var now: @Sendable () -> Double = { 0 }  // seconds since 1970
        /* the instant */ var instant: @Sendable () -> Double = /* zero */ { 0 } /* after */
        var sleep: @Sendable (Double) async throws -> Void // last member
      }
      """,
      expandedSource: """
        struct Clock: StaticFeature {
          /// Now, in seconds.
          @available(*, deprecated, message: "use instant")
          var now: @Sendable () -> Double = { 0 }  // seconds since 1970
          /* the instant */ var instant: @Sendable () -> Double = /* zero */ { 0 } /* after */
          var sleep: @Sendable (Double) async throws -> Void // last member

          /// Creates the feature from an implementation of each member.
          init(
            now: @escaping @Sendable () -> Double,
            instant: @escaping @Sendable () -> Double,
            sleep: @escaping @Sendable (Double) async throws -> Void
          ) {
            self.now = now
            self.instant = instant
            self.sleep = sleep
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              now: Arbor.unimplemented("Clock.now", placeholder: 0, line: 5),
              instant: Arbor.unimplemented("Clock.instant", placeholder: 0, line: 6),
              sleep: Arbor.unimplemented("Clock.sleep", line: 7)
            )
          }
        }
        """)
  }

  @Test func theDefaultMayBeAReturnOrNameItsIgnoredArguments() {
    expectExpansion(
      """
      @Feature
      struct Accounts: StaticFeature {
        var user: @Sendable (_ token: String) -> String? = { token in return nil }
        var all: @Sendable () -> [String] = {
          // nobody
          []
        }
      }
      """,
      expandedSource: """
        struct Accounts: StaticFeature {
          var user: @Sendable (_ token: String) -> String? = { token in return nil }
          var all: @Sendable () -> [String] = {
            // nobody
            []
          }

          /// Creates the feature from an implementation of each member.
          init(
            user: @escaping @Sendable (_ token: String) -> String?,
            all: @escaping @Sendable () -> [String]
          ) {
            self.user = user
            self.all = all
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              user: Arbor.unimplemented("Accounts.user", placeholder: nil, line: 3),
              all: Arbor.unimplemented("Accounts.all", placeholder: [], line: 4)
            )
          }
        }
        """)
  }

  @Test func aStructThatWritesItsPlaceholderGetsOnlyTheInitialiser() {
    // The escape hatch for every member the placeholder cannot be generated for.
    expectExpansion(
      """
      @Feature
      public struct RequestLog: CacheableFeature {
        public var logger: Logger
        public var format: @Sendable (@autoclosure () -> String) -> String
        public static var placeholder: RequestLog { RequestLog(logger: .quiet, format: { $0() }) }
      }
      """,
      expandedSource: """
        public struct RequestLog: CacheableFeature {
          public var logger: Logger
          public var format: @Sendable (@autoclosure () -> String) -> String
          public static var placeholder: RequestLog { RequestLog(logger: .quiet, format: { $0() }) }

          /// Creates the feature from an implementation of each member.
          public init(
            logger: Logger,
            format: @escaping @Sendable (@autoclosure () -> String) -> String
          ) {
            self.logger = logger
            self.format = format
          }
        }
        """)
  }

  @Test func aStructThatWritesItsInitialiserGetsOnlyThePlaceholder() {
    // An initialiser with other parameters is not the memberwise one: the macro still writes that.
    expectExpansion(
      """
      @Feature
      public struct Printer: DisposableFeature {
        public var print: @Sendable (String) -> Void
        public init(print: @escaping @Sendable (String) -> Void) { self.print = print }
      }
      @Feature
      struct Greeter: DisposableFeature {
        var greet: @Sendable () -> Void
        init(greeting: String) { self.greet = { Swift.print(greeting) } }
      }
      """,
      expandedSource: """
        public struct Printer: DisposableFeature {
          public var print: @Sendable (String) -> Void
          public init(print: @escaping @Sendable (String) -> Void) { self.print = print }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          public static var placeholder: Self {
            Self(
              print: Arbor.unimplemented("Printer.print", line: 3)
            )
          }
        }
        struct Greeter: DisposableFeature {
          var greet: @Sendable () -> Void
          init(greeting: String) { self.greet = { Swift.print(greeting) } }

          /// Creates the feature from an implementation of each member.
          init(
            greet: @escaping @Sendable () -> Void
          ) {
            self.greet = greet
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              greet: Arbor.unimplemented("Greeter.greet", line: 8)
            )
          }
        }
        """)
  }

  @Test func observedMembersAndIfBlocksWithoutStoredMembersAreKept() {
    expectExpansion(
      """
      @Feature
      struct Counter: CacheableFeature {
        var increment: @Sendable () -> Int = { 0 } {
          didSet { print("replaced") }
        }
        #if DEBUG
          var debugName: String { "counter" }
          static var shared: Int { 0 }
          func describe() -> String { debugName }
        #endif
        var `default`: @Sendable () -> Void
      }
      """,
      expandedSource: """
        struct Counter: CacheableFeature {
          var increment: @Sendable () -> Int = { 0 } {
            didSet { print("replaced") }
          }
          #if DEBUG
            var debugName: String { "counter" }
            static var shared: Int { 0 }
            func describe() -> String { debugName }
          #endif
          var `default`: @Sendable () -> Void

          /// Creates the feature from an implementation of each member.
          init(
            increment: @escaping @Sendable () -> Int,
            `default`: @escaping @Sendable () -> Void
          ) {
            self.increment = increment
            self.`default` = `default`
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              increment: Arbor.unimplemented("Counter.increment", placeholder: 0, line: 3),
              `default`: Arbor.unimplemented("Counter.default", line: 11)
            )
          }
        }
        """)
  }

  @Test func aFeatureWithoutMembers() {
    expectExpansion(
      """
      @Feature
      struct Marker: StaticFeature {
      }
      """,
      expandedSource: """
        struct Marker: StaticFeature {

          /// Creates the feature from an implementation of each member.
          init() {

          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self()
          }
        }
        """)
  }
}
