/// A placeholder for a feature member that returns nothing: calling it reports ``FeatureUnimplemented``.
///
/// In a test (with `ArborTesting`) the call records a test failure. Outside tests it is reported
/// as a failure through ``IssueReporting`` (your reporter, or standard error), and then returns:
/// a member that does nothing never passes silently, and never takes the process down.
///
/// ```swift
/// static var placeholder: Printer { Printer(print: unimplemented("Printer.print")) }
/// ```
///
/// - Parameters:
///   - member: The member's name, `Type.member`, as reports show it.
///   - file: Where the placeholder is written; captured for you.
///   - line: Where the placeholder is written; captured for you.
/// - Returns: A closure of any arity that reports when called.
// Disfavoured so that a `throws -> Void` member takes the throwing overload below, which throws the
// error, rather than this one converted to a throwing type.
@_disfavoredOverload
public func unimplemented<each Argument>(
  _ member: String, file: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) -> Void {
  let location = SourceLocation(fileID: file, line: line)
  return { (_: repeat each Argument) in
    FeatureUnimplemented(member: member, location: location).report(severity: .failure)
  }
}

/// A placeholder for a throwing feature member: calling it throws ``FeatureUnimplemented``.
///
/// In a test (with `ArborTesting`) the error, reaching the test, is its one failure: the call
/// records nothing else. Outside tests it is also reported as a failure through ``IssueReporting``,
/// so that a caller that swallows the error still leaves a trace.
///
/// ```swift
/// static var placeholder: Greeter { Greeter(greet: unimplemented("Greeter.greet")) }
/// ```
///
/// - Parameters:
///   - member: The member's name, `Type.member`, as reports show it.
///   - file: Where the placeholder is written; captured for you.
///   - line: Where the placeholder is written; captured for you.
/// - Returns: A closure of any arity that throws (and outside tests reports) when called.
public func unimplemented<each Argument, Result>(
  _ member: String, file: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) throws -> Result {
  let location = SourceLocation(fileID: file, line: line)
  return { (_: repeat each Argument) in
    let inTest = IssueReporting.testIsRunning
    let error = FeatureUnimplemented(member: member, location: location, inTest: inTest)
    // A test records the error thrown into it: reported here too, it would fail the test twice.
    // Outside a test a caller may swallow the error, so the report leaves a trace.
    if inTest { FeatureUnimplemented.calls?.receive(error) } else { error.report(severity: .failure) }
    throw error
  }
}

/// A placeholder for a feature member that returns a value: calling it reports ``FeatureUnimplemented``
/// and returns `placeholder`.
///
/// In a test the report is a test failure; outside tests it is a warning, through ``IssueReporting``.
///
/// ```swift
/// static var placeholder: Clock { Clock(now: unimplemented("Clock.now", placeholder: 0)) }
/// ```
///
/// - Parameters:
///   - member: The member's name, `Type.member`, as reports show it.
///   - placeholder: The value to return.
///   - file: Where the placeholder is written; captured for you.
///   - line: Where the placeholder is written; captured for you.
/// - Returns: A closure of any arity that reports and returns `placeholder` when called.
public func unimplemented<each Argument, Result>(
  _ member: String, placeholder: @autoclosure @escaping @Sendable () -> Result,
  file: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) -> Result {
  let location = SourceLocation(fileID: file, line: line)
  return { (_: repeat each Argument) in
    FeatureUnimplemented(member: member, location: location).report(severity: .warning)
    return placeholder()
  }
}
