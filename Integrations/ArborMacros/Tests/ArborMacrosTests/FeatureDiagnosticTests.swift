import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Feature` refuses, and what each message tells the user to write instead. A refused
/// member makes the macro generate nothing, so the expansion is the source without the attribute.
@Suite struct FeatureDiagnosticTests {
  @Test func aReturningMemberWithoutADefaultIsAnErrorWithAFixIt() {
    // Never a silent default: the user writes the value the placeholder returns.
    expectExpansion(
      """
      @Feature
      struct Clock: StaticFeature {
        var now: @Sendable () -> Double  // seconds
        var distance: @Sendable (Double, Double) async -> Double
      }
      """,
      expandedSource: """
        struct Clock: StaticFeature {
          var now: @Sendable () -> Double  // seconds
          var distance: @Sendable (Double, Double) async -> Double
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'now' returns 'Double' without throwing, so its placeholder needs a value to return: "
            + "give the member a default that returns it, '= { <#Double#> }', or write 'static var placeholder' "
            + "yourself, and @Feature generates only the initialiser",
          line: 3, column: 7, fixIts: [FixItSpec(message: "Give 'now' a default that returns its placeholder value")]),
        DiagnosticSpec(
          message: "'distance' returns 'Double' without throwing, so its placeholder needs a value to return: "
            + "give the member a default that returns it, '= { <#Double#> }', or write 'static var placeholder' "
            + "yourself, and @Feature generates only the initialiser",
          line: 4, column: 7,
          fixIts: [FixItSpec(message: "Give 'distance' a default that returns its placeholder value")]),
      ],
      applyFixIts: [
        "Give 'now' a default that returns its placeholder value",
        "Give 'distance' a default that returns its placeholder value",
      ],
      fixedSource: """
        @Feature
        struct Clock: StaticFeature {
          var now: @Sendable () -> Double = { <#Double#> }  // seconds
          var distance: @Sendable (Double, Double) async -> Double = { _, _ in <#Double#> }
        }
        """)
  }

  @Test func aTypedThrowNeedsADefaultToo() {
    expectExpansion(
      """
      @Feature
      struct Parser: DisposableFeature {
        var parse: @Sendable (String) throws(ParseError) -> Int
      }
      """,
      expandedSource: """
        struct Parser: DisposableFeature {
          var parse: @Sendable (String) throws(ParseError) -> Int
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'parse' returns 'Int' without throwing (it throws 'ParseError', not 'FeatureUnimplemented'), "
            + "so its placeholder needs a value to return: give the member a default that returns it, "
            + "'= { <#Int#> }', or write 'static var placeholder' yourself, and @Feature generates only the "
            + "initialiser",
          line: 3, column: 7,
          fixIts: [FixItSpec(message: "Give 'parse' a default that returns its placeholder value")])
      ],
      applyFixIts: ["Give 'parse' a default that returns its placeholder value"],
      fixedSource: """
        @Feature
        struct Parser: DisposableFeature {
          var parse: @Sendable (String) throws(ParseError) -> Int = { _ in <#Int#> }
        }
        """)
  }

  @Test func aDefaultMustBeAClosureReturningOneValueThatNeedsNoArgument() {
    let ownPlaceholder = "or write 'static var placeholder' yourself, and @Feature generates only the initialiser"
    expectExpansion(
      """
      @Feature
      struct Clock: StaticFeature {
        var now: @Sendable () -> Double = Clock.zero
        var later: @Sendable () -> Double = {
          let now = 1.0
          return now + 1
        }
        var double: @Sendable (Double) -> Double = { $0 * 2 }
        var half: @Sendable (Double) -> Double = { value in value / 2 }
      }
      """,
      expandedSource: """
        struct Clock: StaticFeature {
          var now: @Sendable () -> Double = Clock.zero
          var later: @Sendable () -> Double = {
            let now = 1.0
            return now + 1
          }
          var double: @Sendable (Double) -> Double = { $0 * 2 }
          var half: @Sendable (Double) -> Double = { value in value / 2 }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "@Feature takes the placeholder value of 'now' from a closure literal that returns it; "
            + "write the default as '{ <#value#> }', \(ownPlaceholder)",
          line: 3, column: 37),
        DiagnosticSpec(
          message: "the default of 'later' must return one expression, the value its placeholder returns: "
            + "'{ <#value#> }'; \(ownPlaceholder)",
          line: 4, column: 39),
        DiagnosticSpec(
          message: "the default of 'double' uses the closure's arguments, but a placeholder returns one value "
            + "whatever it is called with; return a value that needs no argument, \(ownPlaceholder)",
          line: 8, column: 48),
        DiagnosticSpec(
          message: "the default of 'half' uses the closure's arguments, but a placeholder returns one value "
            + "whatever it is called with; return a value that needs no argument, \(ownPlaceholder)",
          line: 9, column: 55),
      ])
  }

  @Test func anUnusedDefaultIsAWarningWithAFixIt() {
    // A member that throws, or returns nothing, has a placeholder that needs no value.
    expectExpansion(
      """
      @Feature
      struct Printer: DisposableFeature {
        var print: @Sendable (String) -> Void = { _ in }
      }
      """,
      expandedSource: """
        struct Printer: DisposableFeature {
          var print: @Sendable (String) -> Void = { _ in }

          /// Creates the feature from an implementation of each member.
          init(
            print: @escaping @Sendable (String) -> Void
          ) {
            self.print = print
          }

          /// The feature with every member unimplemented: calling one reports it, and a test patches the
          /// members it uses.
          static var placeholder: Self {
            Self(
              print: Arbor.unimplemented("Printer.print", line: 3)
            )
          }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "the default of 'print' is never used: its placeholder returns nothing; remove it",
          line: 3, column: 41, severity: .warning, fixIts: [FixItSpec(message: "Remove the default")])
      ],
      applyFixIts: ["Remove the default"],
      fixedSource: """
        @Feature
        struct Printer: DisposableFeature {
          var print: @Sendable (String) -> Void
        }
        """)
  }

  @Test func aTypealiasedClosureTypeIsRefusedWithWhatToWrite() {
    expectExpansion(
      """
      @Feature
      struct Client: DisposableFeature {
        var refresh: RequestOf<Feed>
        var fetch: Fetch = { _ in [] }
      }
      """,
      expandedSource: """
        struct Client: DisposableFeature {
          var refresh: RequestOf<Feed>
          var fetch: Fetch = { _ in [] }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'refresh' is not written as a closure type, so @Feature needs its placeholder value: give it "
            + "a default, '= <#RequestOf<Feed>#>'. If 'RequestOf<Feed>' names a closure type, write the closure "
            + "type itself: a macro cannot see through a typealias. Or write 'static var placeholder' yourself, "
            + "and @Feature generates only the initialiser",
          line: 3, column: 7, fixIts: [FixItSpec(message: "Give 'refresh' a default")]),
        DiagnosticSpec(
          message: "'fetch' has a closure as its value but its type 'Fetch' is not written as a closure type, "
            + "which a macro cannot see through (a typealias); write the closure type itself, "
            + "'@Sendable (<#Arguments#>) -> <#Result#>'",
          line: 4, column: 14),
      ],
      applyFixIts: ["Give 'refresh' a default"],
      fixedSource: """
        @Feature
        struct Client: DisposableFeature {
          var refresh: RequestOf<Feed> = <#RequestOf<Feed>#>
          var fetch: Fetch = { _ in [] }
        }
        """)
  }

  @Test func membersInsideIfBlocksAreRefused() {
    expectExpansion(
      """
      @Feature
      struct Tracer: StaticFeature {
        var trace: @Sendable (String) -> Void
        #if DEBUG
          var dump: @Sendable () -> Void
        #endif
        #if os(Linux)
          @available(*, deprecated)
        #endif
        var flush: @Sendable () -> Void
      }
      """,
      expandedSource: """
        struct Tracer: StaticFeature {
          var trace: @Sendable (String) -> Void
          #if DEBUG
            var dump: @Sendable () -> Void
          #endif
          #if os(Linux)
            @available(*, deprecated)
          #endif
          var flush: @Sendable () -> Void
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "@Feature cannot generate an initialiser for stored members inside '#if' (a parameter list has "
            + "no '#if'); move them out of the '#if' block, or remove @Feature and write the initialiser and "
            + "'placeholder' by hand",
          line: 4, column: 3),
        DiagnosticSpec(
          message: "@Feature cannot read the attributes of 'flush' inside '#if'; write them without '#if', or "
            + "remove @Feature and write the initialiser and 'placeholder' by hand",
          line: 7, column: 3),
      ])
  }

  @Test func initAccessorsPropertyWrappersAndUntypedMembersAreRefused() {
    expectExpansion(
      """
      @Feature
      struct Settings: StaticFeature {
        var storage: [String: String]
        var theme: String {
          @storageRestrictions(initializes: storage)
          init { storage = ["theme": newValue] }
          get { storage["theme"] ?? "" }
        }
        @Clamped var volume: Int
        var retries = 3
      }
      """,
      expandedSource: """
        struct Settings: StaticFeature {
          var storage: [String: String]
          var theme: String {
            @storageRestrictions(initializes: storage)
            init { storage = ["theme": newValue] }
            get { storage["theme"] ?? "" }
          }
          @Clamped var volume: Int
          var retries = 3
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'storage' is not written as a closure type, so @Feature needs its placeholder value: give it "
            + "a default, '= <#[String: String]#>'. If '[String: String]' names a closure type, write the "
            + "closure type itself: a macro cannot see through a typealias. Or write 'static var placeholder' "
            + "yourself, and @Feature generates only the initialiser",
          line: 3, column: 7, fixIts: [FixItSpec(message: "Give 'storage' a default")]),
        DiagnosticSpec(
          message: "@Feature cannot generate an initialiser for 'theme', which has an 'init' accessor; make it a "
            + "stored 'var', or remove @Feature and write the initialiser and 'placeholder' by hand",
          line: 4, column: 7),
        DiagnosticSpec(
          message: "@Feature does not know what '@Clamped' on 'volume' does to its storage (a property wrapper "
            + "changes what the initialiser takes); remove it, or remove @Feature and write the initialiser and "
            + "'placeholder' by hand",
          line: 9, column: 3),
        DiagnosticSpec(
          message: "@Feature needs the type of 'retries' for the initialiser; write it: 'var retries: <#Type#>'",
          line: 10, column: 7, fixIts: [FixItSpec(message: "Write the type of 'retries'")]),
      ],
      applyFixIts: ["Write the type of 'retries'"],
      fixedSource: """
        @Feature
        struct Settings: StaticFeature {
          var storage: [String: String]
          var theme: String {
            @storageRestrictions(initializes: storage)
            init { storage = ["theme": newValue] }
            get { storage["theme"] ?? "" }
          }
          @Clamped var volume: Int
          var retries: <#Type#> = 3
        }
        """)
  }

  @Test func parametersUnimplementedCannotTakeAreRefused() {
    let ownPlaceholder = "or write 'static var placeholder' yourself, and @Feature generates only the initialiser"
    expectExpansion(
      """
      @Feature
      struct Logger: StaticFeature {
        var log: @Sendable (@autoclosure () -> String) -> Void
        var measure: @Sendable (_ body: () -> Void) -> Double = { _ in 0 }
      }
      """,
      expandedSource: """
        struct Logger: StaticFeature {
          var log: @Sendable (@autoclosure () -> String) -> Void
          var measure: @Sendable (_ body: () -> Void) -> Double = { _ in 0 }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "the placeholder of 'log' cannot take an '@autoclosure' parameter ('@autoclosure () -> String'): "
            + "'unimplemented' takes plain parameters; \(ownPlaceholder)",
          line: 3, column: 23),
        DiagnosticSpec(
          message: "the placeholder of 'measure' cannot take a non-escaping closure parameter "
            + "('_ body: () -> Void'): 'unimplemented' takes plain parameters; \(ownPlaceholder)",
          line: 4, column: 27),
      ])
  }

  @Test func declarationsTheMacroCannotReadAreRefused() {
    expectExpansion(
      """
      @Feature
      struct Pair: StaticFeature {
        var first, second: @Sendable () -> Void
        var (x, y): (Int, Int) = (0, 0)
      }
      """,
      expandedSource: """
        struct Pair: StaticFeature {
          var first, second: @Sendable () -> Void
          var (x, y): (Int, Int) = (0, 0)
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "@Feature reads one member per declaration; declare each member with its own 'var'",
          line: 3, column: 7),
        DiagnosticSpec(
          message: "@Feature reads members named by one identifier; declare each member with its own 'var'",
          line: 4, column: 7),
      ])
  }

  @Test func onlyAStructThatDeclaresItsLifetime() {
    expectExpansion(
      """
      @Feature
      enum Clock: StaticFeature {
      }
      @Feature
      struct Printer {
        var print: @Sendable (String) -> Void
      }
      """,
      expandedSource: """
        enum Clock: StaticFeature {
        }
        struct Printer {
          var print: @Sendable (String) -> Void
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "@Feature applies to a struct of closures; write this declaration's 'placeholder' by hand",
          line: 1, column: 1),
        DiagnosticSpec(
          message: "@Feature needs 'Printer' to declare its lifetime where it is declared: add ': StaticFeature', "
            + "': DisposableFeature' or ': CacheableFeature' to the struct",
          line: 5, column: 8),
      ])
  }
}
